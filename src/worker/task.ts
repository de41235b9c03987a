import type { JobVertex } from '../graph/job-graph.ts';
import type { FromTaskExecutor, TaskMetrics, TaskStatus } from '../rpc/control-protocol.ts';
import { serializeError } from '../rpc/serialized-error.ts';
import type { Barrier, CheckpointOptions } from '../network/stream-event.ts';
import type { AlignmentFigures } from './checkpointing/alignment-figures.ts';
import type { InFlightInput } from './checkpointing/in-flight-input.ts';
import { InjectedFailure } from './injected-failure.ts';
import { MailboxProcessor } from './mailbox-processor.ts';
import type { OperatorChain } from './operator-chain.ts';
import { createOperatorChain } from './create-operator-chain.ts';
import { RecoveredChannelState } from './recovered-channel-state.ts';
import { type CheckpointReport, SubtaskCheckpointCoordinator } from './subtask-checkpoint-coordinator.ts';
import { TaskActivityTracker } from './task-activity-tracker.ts';
import { TaskOutputs } from './task-outputs.ts';
import { taskMetrics } from './task-metrics.ts';
import { SplitDelivery } from './split-delivery.ts';
import { SourceTaskMails } from './source-task-mails.ts';
import { createTaskInput } from './create-task-input.ts';
import type { TaskInput } from './task-input.ts';
import type { TaskSetup } from './task-setup.ts';
import { ProcessingTimeService } from './processing-time-service.ts';
import { OperatorMails } from './operator-mails.ts';
import { systemClock } from '../clock/clock.ts';
import { MAX_WATERMARK } from '../api/watermark.ts';

/** Longest a step goes on taking input once it has taken some (it always takes one buffer or event). */
const STEP_MS = 4;

/** A task's message before the task stamps it with its attempt, vertex and subtask. */
type Unstamped<T> = T extends unknown ? Omit<T, 'attempt' | 'vertexId' | 'subtask'> : never;

export type { TaskSetup } from './task-setup.ts';
export type StepResult = 'busy' | 'idle' | 'done';

/**
 * One subtask: an operator chain fed by its input (a source reader, or the network with one or
 * more logical inputs: all the same to the task, see TaskInput), run as a mailbox loop. The
 * TaskManager calls step() whenever the task may have work; each step first runs mails
 * (checkpoint triggers, notifications), then takes a bounded amount of input.
 */
export class Task {
  readonly vertex: JobVertex;
  readonly subtask: number;
  readonly #setup: TaskSetup;
  readonly #chain: OperatorChain;
  readonly #outputs: TaskOutputs;
  readonly #activity = new TaskActivityTracker();
  readonly #mailbox: MailboxProcessor;
  readonly #splits: SplitDelivery;
  /** A source task's mails from the JobMaster: watermark alignment, enumerator events, stop-with-savepoint. */
  readonly source: SourceTaskMails;
  readonly #checkpoints: SubtaskCheckpointCoordinator;
  readonly #input: TaskInput;
  readonly #recovered: RecoveredChannelState;
  readonly #processingTime: ProcessingTimeService;
  readonly #operatorMails: OperatorMails;
  /** Where the restored checkpoint is read from: its location, or a staged copy of it. */
  #restoreLocation: string;
  #status: TaskStatus = 'initializing';

  constructor(setup: TaskSetup) {
    this.#setup = setup;
    this.vertex = setup.vertex;
    this.subtask = setup.subtask;
    this.#mailbox = new MailboxProcessor(this.#activity, setup.wake, (e) => this.fail(e));
    this.#outputs = new TaskOutputs([...setup.writers.values()], this.#mailbox, this.#activity, setup.bufferTimeoutMs ?? 100);
    this.#processingTime = new ProcessingTimeService(setup.clock ?? systemClock, this.#mailbox.mailbox);
    this.#operatorMails = new OperatorMails(this.#mailbox);
    this.#chain = createOperatorChain(setup, { processingTime: this.#processingTime, mails: this.#operatorMails, restoreLocation: () => this.#restoreLocation });
    const gate = setup.gate;
    this.#checkpoints = new SubtaskCheckpointCoordinator({
      vertex: setup.vertex,
      subtask: setup.subtask,
      chain: this.#chain,
      writers: setup.writers,
      inputChannelKeys: gate?.channels.map((c) => c.key) ?? [],
      storage: setup.storage,
      report: (m: CheckpointReport) => this.#report(m),
      fail: (e) => this.fail(e),
      log: setup.log,
    });
    this.#restoreLocation = setup.restore?.directory ?? '';
    this.#splits = new SplitDelivery(this.#mailbox.mailbox, () => this.#isTerminal(), (splits) => this.#report({ type: 'splitsUndelivered', splits }));
    this.source = new SourceTaskMails(this.#mailbox, {
      running: () => this.#status === 'running',
      input: () => this.#input.source,
      flush: () => this.#outputs.flush(),
      endOfInput: () => this.#endOfInput(),
      activity: this.#activity,
    });
    this.#recovered = new RecoveredChannelState({ channels: setup.restore?.channels, vertex: setup.vertex, subtask: setup.subtask, writers: setup.writers, read: (h) => setup.storage.readChannelState(h, this.#restoreLocation) });
    this.#input = createTaskInput({
      setup,
      chain: this.#chain,
      recovered: this.#recovered,
      mailbox: this.#mailbox,
      checkpoints: {
        triggerSnapshot: (barrier, figures, inFlight) => this.#snapshot(barrier, figures, inFlight),
        abortCheckpoint: (id, r) => this.#checkpoints.decline(id, r.code, r.message),
      },
      toEnumerator: (m) => this.#report(m),
      fail: (e) => this.fail(e),
    });
    this.#splits.deliverTo(this.#input.source);
  }

  get status(): TaskStatus {
    return this.#status;
  }

  get name(): string {
    return `${this.vertex.name} (${this.subtask + 1}/${this.vertex.parallelism})`;
  }

  get mailbox(): MailboxProcessor['mailbox'] {
    return this.#mailbox.mailbox;
  }

  async initialize(): Promise<void> {
    const restoring = this.#setup.restore;
    this.#activity.set(restoring ? { kind: 'initializing', restoringCheckpoint: restoring.checkpointId } : { kind: 'initializing' });
    // A checkpoint on an object store comes here first: channel state is read synchronously below.
    const staged = restoring && this.#setup.storage.stageRestore ? await this.#setup.storage.stageRestore(restoring) : undefined;
    if (staged) this.#restoreLocation = staged.location;
    try {
      await this.#chain.open({
        jobId: this.#setup.jobId,
        jobName: this.#setup.jobName,
        subtaskIndex: this.subtask,
        parallelism: this.vertex.parallelism,
        maxParallelism: this.vertex.maxParallelism,
        attemptNumber: this.#setup.attempt,
        log: this.#setup.log,
      });
      this.#recovered.restore();
    } finally {
      await staged?.discard();
    }
    if (restoring) this.#setup.log.info(`restored the state of checkpoint ${restoring.checkpointId}`, { checkpointId: restoring.checkpointId });
    this.#setStatus('running');
    this.#operatorMails.start();
    this.#activity.set({ kind: this.#input.runningActivity });
  }

  // ---- the mailbox loop, one bounded step at a time ----

  step(): StepResult {
    if (this.#isTerminal()) return 'done';
    this.#activity.idleEnded();
    try {
      if (!this.#mailbox.runMails(() => this.#isTerminal())) return this.#isTerminal() ? 'done' : 'idle';
      if (this.#status === 'initializing') return 'idle';
      this.#input.takePriorityBarriers(() => this.#mailbox.blocked);
      if (this.#mailbox.blocked || !this.#outputs.writable() || this.#sinkWaits()) return 'idle';
      // Waiting for the sink's writer is its work (Flink counts a blocked writer busy), not idleness.
      if (!this.#mailbox.inputAvailable) return this.#mailbox.isSuspended('sink-not-ready') ? 'idle' : this.#activity.idleStarted();
      const result = this.#processInput();
      this.#checkInjectedFailure();
      return result;
    } catch (e) {
      this.fail(e);
      return 'done';
    }
  }

  #processInput(): StepResult {
    const input = this.#input;
    // Bounded in time as well as in items: an operator slow per record (a join that spins, an
    // expensive map) would otherwise hold the thread for stepBudget buffers at once, and the
    // event loop (storage I/O of checkpoints' asynchronous parts, the JobMaster's timers in this
    // thread) and the priority barriers taken at the start of each step would wait that long.
    const deadline = performance.now() + STEP_MS;
    for (let i = 0; i < input.stepBudget; i++) {
      const status = input.processInput();
      if (status === 'end-of-input') {
        this.#endOfInput();
        return 'idle';
      }
      if (status === 'nothing-available') {
        this.#outputs.flush();
        return this.#activity.idleStarted();
      }
      // An operator may have held the input back (an async operator at capacity) with the record just taken.
      if (!this.#mailbox.inputAvailable || !this.#outputs.writable() || this.#sinkWaits()) return 'idle';
      if (performance.now() >= deadline) break;
    }
    this.#outputs.maybeTimedFlush();
    return 'busy';
  }

  /** The sink writer asks to wait (ready()): no input until it is ready. Asked between buffers too, so a slow sink takes one buffer, not a step's eight, ahead of a barrier. */
  #sinkWaits(): boolean {
    const ready = this.#mailbox.isSuspended('sink-not-ready') ? undefined : this.#chain.ready();
    if (ready !== undefined) this.#mailbox.suspendUntil(ready, 'sink-not-ready', { kind: 'waiting-for-sink' });
    return ready !== undefined;
  }

  #checkInjectedFailure(): void {
    const limit = this.#setup.failAfterRecords;
    if (limit === undefined) return;
    const taken = this.#input.recordsIn;
    if (taken >= limit) throw new InjectedFailure(this.name, taken);
  }

  /** All input consumed: let operators flush, tell downstream, and wait for the JobMaster's finish. */
  #endOfInput(): void {
    // The end of event time first (Flink's MAX_WATERMARK), so every window and event-time timer
    // fires before the operators end their input. Sources send it; a task whose channels did not
    // all bring it (one ended idle) has seen the last record anyway.
    if (!this.#input.eventTimeEnded) this.#chain.processWatermark(MAX_WATERMARK);
    this.#mailbox.runExclusively(
      this.#chain.endInput().then(() => {
        // An armed failure that the input was too short to reach fires at its end.
        if (this.#setup.failAfterRecords !== undefined) throw new InjectedFailure(this.name, this.#input.recordsIn);
        this.#outputs.broadcastEvent({ kind: 'end-of-data' });
        this.#setStatus('end-of-data');
        this.#activity.set({ kind: 'input-finished' });
      }),
      { kind: 'finishing-input' },
    );
  }

  // ---- checkpoints ----

  /** A source task's trigger, run as mail: between two polls, never inside one. */
  triggerCheckpoint(checkpointId: number, timestamp: number, options: CheckpointOptions): void {
    this.mailbox.put({
      description: `checkpoint ${checkpointId}`,
      activity: { kind: 'snapshotting', checkpointId },
      run: () => {
        if (this.#status !== 'running' && this.#status !== 'end-of-data') {
          this.#checkpoints.decline(checkpointId, 'CHECKPOINT_DECLINED_TASK_NOT_READY', `subtask was ${this.#status} when checkpoint ${checkpointId} was triggered`);
          return;
        }
        return this.#checkpoints.checkpointState({ kind: 'barrier', checkpointId, timestamp, options }, { alignmentMs: 0, startDelayMs: Date.now() - timestamp, processedBytes: 0 });
      },
    });
  }

  /** Barriers are in (or, unaligned, the first): the synchronous part runs before any further input. */
  #snapshot(barrier: Barrier, alignment: AlignmentFigures, inFlight?: InFlightInput): void {
    this.#mailbox.runExclusively(this.#checkpoints.checkpointState(barrier, alignment, inFlight), { kind: 'snapshotting', checkpointId: barrier.checkpointId });
  }

  notifyCheckpointComplete(checkpointId: number): void {
    this.mailbox.put({ description: `commit of checkpoint ${checkpointId}`, run: () => this.#chain.notifyCheckpointComplete(checkpointId) });
  }

  notifyCheckpointAborted(checkpointId: number, reason: string): void {
    this.mailbox.put({
      description: `abort of checkpoint ${checkpointId}`,
      run: () => {
        this.#checkpoints.abort(checkpointId, reason);
        this.#input.abortCheckpoint(checkpointId, reason);
        return this.#chain.notifyCheckpointAborted(checkpointId);
      },
    });
  }

  // ---- split enumerator -> reader ----

  /** Mail, so splits land between two polls and in the order the enumerator sent them relative to triggers. */
  addSplits(splits: unknown[], noMoreSplits: boolean): void {
    this.#splits.add(splits, noMoreSplits);
  }

  // ---- lifecycle ----

  /** The JobMaster saw every task reach the end of its data (and the final checkpoint): finish, then close. */
  finish(): void {
    this.mailbox.put({
      description: 'closing',
      run: async () => {
        this.#processingTime.quiesce();
        this.#outputs.flush();
        await this.#chain.finish();
        await this.#chain.close();
        this.#setStatus('finished');
      },
    });
  }

  async cancel(): Promise<void> {
    if (this.#isTerminal()) return;
    this.#status = 'canceled';
    this.#processingTime.quiesce();
    this.#checkpoints.abortAll('the task was cancelled');
    this.#report({ type: 'updateTaskStatus', status: 'canceled', ...this.#positions() });
    await this.#chain.close().catch(() => {});
  }

  fail(error: unknown): void {
    if (this.#isTerminal()) return;
    this.#status = 'failed';
    this.#processingTime.quiesce();
    this.#checkpoints.abortAll('the task failed');
    this.#setup.log.warn(`failed: ${error instanceof Error ? error.message : String(error)}`, { error: error instanceof Error ? error.name : 'Error' });
    this.#report({ type: 'updateTaskStatus', status: 'failed', error: serializeError(error, { vertex: this.vertex.name, subtask: this.subtask }), ...this.#positions() });
    this.#setup.wake();
    // Closed whatever the operators fail with now: the task's failure is the one reported.
    void this.#chain.close().catch(() => {});
  }

  metrics(): TaskMetrics {
    const input = this.#input;
    return taskMetrics({
      vertexId: this.vertex.id,
      subtask: this.subtask,
      input,
      outputs: this.#outputs,
      chain: this.#chain,
      activity: this.#activity.report({
        aligning: input.aligning(),
        blocked: this.#mailbox.blocked,
        reader: this.#status === 'running' ? input.source?.operator.reader : undefined,
        writing: this.#checkpoints.writing,
      }),
    });
  }

  // ---- helpers ----

  /** Where a source's reader stands: an at-most-once restart goes on from here. */
  #positions(): { positions?: unknown[] } {
    const source = this.#input.source;
    if (!source || this.#status === 'initializing') return {};
    const { positions } = source.positions();
    // Splits still in the mailbox were never read: they go with the positions, once.
    const undelivered = this.#splits.takeUndelivered();
    return positions ? { positions: [...positions, ...undelivered] } : {};
  }

  #report(message: Unstamped<Extract<FromTaskExecutor, { vertexId: string }>>): void {
    this.#setup.report({ ...message, attempt: this.#setup.attempt, vertexId: this.vertex.id, subtask: this.subtask } as FromTaskExecutor);
  }

  #setStatus(status: TaskStatus): void {
    // Work that was in flight when the task was cancelled or failed (the end of input, closing)
    // must not bring it back to life or report a status over 'canceled'.
    if (this.#isTerminal()) return;
    this.#status = status;
    this.#report({ type: 'updateTaskStatus', status });
  }

  #isTerminal(): boolean {
    return this.#status === 'finished' || this.#status === 'failed' || this.#status === 'canceled';
  }
}
