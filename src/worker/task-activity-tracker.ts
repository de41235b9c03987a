import type { ReaderActivity, SourceReader } from '../api/source.ts';
import type { TaskMetrics } from '../rpc/job-master-gateway.ts';
import type { ActivityReport, TaskActivity } from '../network/task-activity.ts';

/**
 * A task's current activity with since when it lasts, and the time it has spent blocked on a full
 * output (backpressure) and with nothing to do (idle): what its metrics and the reasons of expired
 * checkpoints report. Both are timed at the state changes, never per record; busy time is the
 * rest (Flink's busyTimeMsPerSecond is 1000 minus idle minus backpressured).
 */
export class TaskActivityTracker {
  #activity: TaskActivity = { kind: 'starting' };
  #since = Date.now();
  #backpressureMs = 0;
  /** performance.now() when the current backpressure began; -1 while not backpressured. */
  #backpressureStart = -1;
  #backpressureSince = 0;
  #idleMs = 0;
  /** performance.now() when the current idle stretch began; -1 while not idle. */
  #idleStart = -1;

  get current(): TaskActivity {
    return this.#activity;
  }

  get since(): number {
    return this.#since;
  }

  set(activity: TaskActivity): void {
    this.#activity = activity;
    this.#since = Date.now();
  }

  /** Sets `activity` unless the activity changed since `expected` was set (work that ended after another began). */
  restoreIfStill(expected: TaskActivity, activity: TaskActivity): void {
    if (this.#activity === expected) this.set(activity);
  }

  backpressureStarted(): void {
    if (this.#backpressureStart >= 0) return;
    this.idleEnded();
    this.#backpressureStart = performance.now();
    this.#backpressureSince = Date.now();
  }

  backpressureEnded(): void {
    if (this.#backpressureStart < 0) return;
    this.#backpressureMs += performance.now() - this.#backpressureStart;
    this.#backpressureStart = -1;
  }

  /**
   * The task has nothing to do: no input available, its source has nothing yet, is stopped for a
   * savepoint or its input ended. Not while backpressured: a full output is not idleness. Returns
   * what the task's step then is.
   */
  idleStarted(): 'idle' {
    if (this.#idleStart < 0 && this.#backpressureStart < 0) this.#idleStart = performance.now();
    return 'idle';
  }

  /** Called at every step of the task: whatever woke it (input, a mail) ends its idleness. */
  idleEnded(): void {
    if (this.#idleStart < 0) return;
    this.#idleMs += performance.now() - this.#idleStart;
    this.#idleStart = -1;
  }

  /** Milliseconds spent idle in this attempt, the current stretch included. */
  get idleMs(): number {
    return this.#idleMs + (this.#idleStart >= 0 ? performance.now() - this.#idleStart : 0);
  }

  get backpressured(): boolean {
    return this.#backpressureStart >= 0;
  }

  /** Since when (wall clock) the current backpressure lasts. */
  get backpressuredSince(): number {
    return this.#backpressureSince;
  }

  /** Milliseconds spent backpressured in this attempt, the current stretch included. */
  get backpressuredMs(): number {
    return this.#backpressureMs + (this.#backpressureStart >= 0 ? performance.now() - this.#backpressureStart : 0);
  }

  /**
   * What the task is doing for its metrics, with its time backpressured and idle: an alignment
   * comes first, then backpressure (unless exclusive work holds the task), then a source reader's
   * own account, else the current activity.
   */
  report(now: {
    readonly aligning: Extract<TaskActivity, { kind: 'aligning' }> | undefined;
    readonly blocked: boolean;
    readonly reader: Pick<SourceReader<unknown, unknown>, 'describeActivity'> | undefined;
    readonly writing: ActivityReport['writing'];
  }): ActivityReport & Pick<TaskMetrics, 'backpressure' | 'idle' | 'reportedAt'> {
    // Monotonic within the thread (a wall clock set back would make rates negative), in epoch ms.
    return { backpressure: this.backpressuredMs, idle: this.idleMs, reportedAt: performance.timeOrigin + performance.now(), ...this.#activityReport(now) };
  }

  #activityReport(now: Parameters<TaskActivityTracker['report']>[0]): ActivityReport {
    const { writing } = now;
    if (now.aligning) return { activity: now.aligning, activitySince: this.#since, writing };
    if (this.backpressured && !now.blocked) return { activity: { kind: 'backpressured' }, activitySince: this.#backpressureSince, writing };
    if (this.#activity.kind === 'reading' && now.reader) return { activity: readingActivity(now.reader.describeActivity?.()), activitySince: this.#since, writing };
    return { activity: this.#activity, activitySince: this.#since, writing };
  }
}

/** A reader's own account of its work, as a plain description or with what and since when it reads. */
function readingActivity(described: string | ReaderActivity | undefined): TaskActivity {
  if (described === undefined) return { kind: 'reading' };
  if (typeof described === 'string') return { kind: 'reading', reader: described };
  return { kind: 'reading', reader: described.description, ...(described.subject ? { subject: described.subject } : {}), ...(described.since !== undefined ? { readerSince: described.since } : {}) };
}
