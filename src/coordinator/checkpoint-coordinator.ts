import { failureCounts, type CheckpointFailureReport } from '../checkpoint/checkpoint-failure-reason.ts';
import { within } from '../clock/within.ts';
import { formatDuration } from '../config/duration.ts';
import { taskKey, type TaskKey } from '../ids/task-key.ts';
import { describeStopReason, type Stoppable, type StopReason } from '../lifecycle/service.ts';
import type { CheckpointAcknowledgement, CheckpointDecline } from '../rpc/job-master-gateway.ts';
import type { CheckpointOptions } from '../network/stream-event.ts';
import type { CheckpointCoordinatorDeps, TaskDescriptions, TriggerRequest } from './checkpoint-coordinator-deps.ts';
import { CheckpointFailureManager } from './checkpoint-failure-manager.ts';
import { Unscheduled, type CheckpointLifecycle, type CheckpointLifecycleController } from './checkpoint-lifecycle.ts';
import { CheckpointNotStartedError } from './checkpoint-not-started-error.ts';
import { InMemoryCheckpointIdCounter, type CheckpointIdCounter } from './checkpoint-id-counter.ts';
import { buildCheckpointMetadata } from './checkpoint-metadata-builder.ts';
import { CheckpointRequestDecider } from './checkpoint-request-decider.ts';
import { CheckpointStatsTracker } from './checkpoint-stats.ts';
import type { CompletedCheckpoint } from './completed-checkpoint.ts';
import { CompletedCheckpointStore } from './completed-checkpoint-store.ts';
import { expiredCheckpointReport } from './expired-checkpoint-report.ts';
import { PendingCheckpoint } from './pending-checkpoint.ts';
import { PendingSharedFiles } from './pending-shared-files.ts';
import { PeriodicTrigger } from './periodic-trigger.ts';

/**
 * The JobMaster's checkpoint coordinator (DESIGN §4): triggers checkpoints at the sources,
 * collects one acknowledgement per subtask, writes `_metadata` when all are in, and tells every
 * subtask the checkpoint is complete. Expired and declined checkpoints fail with a reason code;
 * the failure manager counts the ones that count against the tolerable failures. It is usable once
 * constructed (a savepoint may be triggered before the scheduler starts) and stopped once, when the
 * job ends (Stoppable).
 */
export class CheckpointCoordinator implements Stoppable {
  readonly stats = new CheckpointStatsTracker();
  readonly store: CompletedCheckpointStore;
  readonly #shared: PendingSharedFiles;
  readonly #d: CheckpointCoordinatorDeps;
  readonly #decider: CheckpointRequestDecider;
  readonly #failures: CheckpointFailureManager;
  readonly #pending = new Map<number, PendingCheckpoint>();
  readonly #expected: TaskKey[];
  readonly #completed = new Map<number, CompletedCheckpoint>();
  #completions: Promise<void> = Promise.resolve();
  readonly #ids: CheckpointIdCounter;
  /** Triggers waiting for their id from the counter: they count as in flight for max-concurrent-checkpoints. */
  #awaitingId = 0;
  #lifecycle: CheckpointLifecycle = new Unscheduled(0);
  readonly #controller: CheckpointLifecycleController = {
    schedulePeriodic: () => this.#armPeriodic(),
    cancelPeriodic: () => this.#periodicTrigger.cancel(),
    abortPending: (reason) => {
      for (const p of [...this.#pending.values()]) this.#abort(p, { code: 'CHECKPOINT_COORDINATOR_SUSPEND', message: reason });
    },
  };
  readonly #periodicTrigger: PeriodicTrigger;
  #lastTrigger = 0;
  #lastCompletion = 0;

  constructor(deps: CheckpointCoordinatorDeps) {
    this.#d = deps;
    this.#decider = new CheckpointRequestDecider(deps.config);
    this.#periodicTrigger = new PeriodicTrigger(deps.clock, this.#decider, () => {
      this.trigger({ type: 'checkpoint' }).catch(() => {});
      this.#schedule();
    });
    this.#ids = deps.idCounter ?? new InMemoryCheckpointIdCounter();
    this.#failures = new CheckpointFailureManager(deps.config['execution.checkpointing.tolerable-failed-checkpoints']);
    this.store = new CompletedCheckpointStore(deps.config['execution.checkpointing.num-retained'], deps.storage, deps.log);
    this.#shared = new PendingSharedFiles(this.store, (id) => deps.storage.checkpointLocation(id));
    this.#expected = deps.jobGraph.vertices.flatMap((v) => Array.from({ length: v.parallelism }, (_, i) => taskKey(v.id, i)));
  }

  get periodic(): boolean {
    const c = this.#d.config;
    return c['execution.checkpointing.interval'] !== null && c['execution.checkpointing.mode'] !== 'at-most-once';
  }

  /** Continue numbering after a restored checkpoint, as Flink does (the counter never goes back). */
  setNextId(id: number): void | Promise<void> {
    return this.#ids.setCount(id);
  }

  get pendingCount(): number {
    return this.#pending.size;
  }

  /**
   * Resolves once every checkpoint that was fully acknowledged has been finalized: stopScheduler() aborts
   * only the ones still waiting for acknowledgements, so one may still be writing its _metadata.
   */
  settled(): Promise<void> {
    return this.#completions.catch(() => {});
  }

  /** Resolves once no checkpoint triggered so far is in flight any more (completed, failed or aborted). */
  inFlightSettled(): Promise<void> {
    return Promise.allSettled([...this.#pending.values()].map((p) => p.done)).then(() => this.settled());
  }

  /** Tasks are all running: periodic checkpoints may be triggered (Flink's startCheckpointScheduler). */
  startScheduler(): void {
    this.#lifecycle = this.#lifecycle.startScheduler(this.#controller);
  }

  /** No more periodic triggers; checkpoints in flight may still complete (end of input, a stop-with-savepoint). */
  pauseScheduler(): void {
    this.#lifecycle = this.#lifecycle.pauseScheduler(this.#controller);
  }

  /** A failover (Flink's stopCheckpointScheduler): no new triggers; pending checkpoints are aborted with `reason`. */
  stopScheduler(reason: string): void {
    this.#lifecycle = this.#lifecycle.stopScheduler(this.#controller, reason);
  }

  /**
   * The job has ended (Flink's shutdown): nothing may complete any more, not even a checkpoint
   * already fully acknowledged (its retention and notifications belong to a job that is gone).
   * Resolves once the checkpoints being finalized have settled.
   */
  stop(reason: StopReason): Promise<void> {
    this.#lifecycle = this.#lifecycle.stop(this.#controller, reason);
    return this.settled();
  }

  /** Why nothing may complete any more, in the words failure messages use (`job canceled`). */
  get #ended(): string | undefined {
    const reason = this.#lifecycle.stopReason;
    return reason && describeStopReason(reason);
  }

  /** A source (by vertex id) is catching up on a backlog, as its split enumerator says (FLIP-309). */
  setBacklog(sourceVertexId: string, backlog: boolean): void {
    this.#periodicTrigger.setBacklog(sourceVertexId, backlog);
    this.#schedule();
  }

  #schedule(): void {
    if (this.#lifecycle.periodic) this.#armPeriodic();
    else this.#controller.cancelPeriodic();
  }

  #armPeriodic(): void {
    if (!this.periodic) return this.#periodicTrigger.cancel();
    this.#periodicTrigger.arm({ lastTrigger: this.#lastTrigger, lastCompletion: this.#lastCompletion, inFlight: () => this.#pending.size + this.#awaitingId });
  }

  trigger(request: TriggerRequest): Promise<CompletedCheckpoint> {
    if (!this.#lifecycle.admitsTrigger(request.force === true)) return Promise.reject(new Error('the job is not running'));
    let taken: number | Promise<number>;
    try {
      taken = this.#ids.getAndIncrement();
    } catch (e) {
      taken = Promise.reject(e as Error);
    }
    // The in-memory counter answers at once: the trigger goes out in this turn, with no promise hop.
    if (typeof taken === 'number') return this.#triggerWithId(request, taken);
    return this.#awaitId(request, taken);
  }

  /** A counter that asks a store (NATS): its answer may come late, be a failure, or never come. */
  async #awaitId(request: TriggerRequest, taken: Promise<number>): Promise<CompletedCheckpoint> {
    const epoch = this.#lifecycle.epoch;
    const timeout = this.#d.config['execution.checkpointing.timeout'];
    // The periodic timer counts from the request, so a slow counter cannot make it fire again at once.
    this.#lastTrigger = this.#d.clock.now();
    this.#awaitingId++;
    let id: number;
    try {
      id = await within(this.#d.clock, timeout, taken, () => `no answer within execution.checkpointing.timeout (${formatDuration(timeout)})`);
    } catch (e) {
      // Under a job that is failing over or ending (a lost leadership's fenced write among them) it says nothing of the store.
      if (!this.#lifecycle.admitsIdFrom(epoch)) throw new Error(`${request.type} not started: ${this.#ended ?? 'the job failed over'} while its id was being taken`);
      return this.#failedWithoutId(request, new CheckpointNotStartedError(request.type, 'IO_EXCEPTION', this.#ids.description, (e as Error).message));
    } finally {
      this.#awaitingId--;
    }
    if (!this.#lifecycle.admitsIdFrom(epoch)) {
      // The job failed over or ended while the id was on its way: the id is spent, nothing goes out.
      throw new Error(`${request.type} ${id} not triggered: ${this.#ended ?? 'the job failed over'} while its id was being taken`);
    }
    return this.#triggerWithId(request, id);
  }

  /** A checkpoint that failed before it had an id: no history entry, but it counts like any other failure. */
  #takeCompleted(id: number): CompletedCheckpoint {
    const cp = this.#completed.get(id)!;
    this.#completed.delete(id);
    return cp;
  }

  #failedWithoutId(request: TriggerRequest, error: CheckpointNotStartedError): Promise<never> {
    this.stats.failedWithoutId();
    const fatal = this.#failures.failed(undefined, request.type === 'savepoint', { code: error.code, message: error.message });
    this.#d.log.warn(error.message, { code: error.code });
    if (fatal) this.#d.failJob(fatal);
    else this.#schedule();
    return Promise.reject(error);
  }

  #triggerWithId(request: TriggerRequest, id: number): Promise<CompletedCheckpoint> {
    const c = this.#d.config;
    const timestamp = this.#d.clock.now();
    const unaligned = request.type === 'checkpoint' && c['execution.checkpointing.unaligned.enabled'];
    // Incremental checkpoints build on the latest completed one; savepoints are always full and canonical.
    const incrementalBase = request.type === 'checkpoint' && c['execution.checkpointing.incremental'] ? this.#shared.pinBase(id) : undefined;
    const options: CheckpointOptions = {
      type: request.type,
      unaligned: unaligned && c['execution.checkpointing.aligned-checkpoint-timeout'] === 0,
      alignedTimeout: unaligned ? c['execution.checkpointing.aligned-checkpoint-timeout'] : 0,
      targetDir: request.targetDir ?? this.#d.storage.checkpointLocation(id),
      ...(incrementalBase !== undefined ? { incrementalBase } : {}),
    };
    const stats = this.stats.triggered(id, request.type === 'savepoint', timestamp, this.#expected.length);
    const pending = new PendingCheckpoint(id, timestamp, options, this.#expected, stats);
    this.#pending.set(id, pending);
    this.#lastTrigger = timestamp;
    const timeout = c['execution.checkpointing.timeout'];
    pending.timer = this.#d.clock.schedule(() => void this.#expire(pending, timeout), timeout);
    this.#d.log.info(`triggering ${request.type} ${id}`, { checkpointId: id });
    // No await between the two: an enumerator's assignment is either in its snapshot or after the trigger.
    pending.coordinators = this.#d.snapshotCoordinators?.(id) ?? {};
    this.#d.triggerSources(id, timestamp, options);
    return pending.done.then(() => this.#takeCompleted(id));
  }


  receiveAck(m: CheckpointAcknowledgement): void {
    const p = this.#pending.get(m.checkpointId);
    if (!p) {
      // Too late (the checkpoint was aborted): shared files written for it alone are nobody's.
      if (!this.store.all().some((c) => c.id === m.checkpointId)) void this.#shared.release(m.checkpointId, [m.state]);
      return;
    }
    if (p.acknowledge(taskKey(m.vertexId, m.subtask), m.state, m.figures) !== 'SUCCESS') return;
    this.stats.acknowledged(p.stats, { ...m.figures, vertexId: m.vertexId, subtask: m.subtask, ackTimestamp: this.#d.clock.now() });
    if (p.isFullyAcknowledged) {
      // Finalize in acknowledgement order, so a slow _metadata write cannot reorder completions.
      this.#pending.delete(p.id);
      this.#completions = this.#completions.then(() => this.#complete(p));
    }
  }

  receiveDecline(m: CheckpointDecline): void {
    const p = this.#pending.get(m.checkpointId);
    if (!p) return;
    const vertex = this.#d.jobGraph.vertices.find((v) => v.id === m.vertexId);
    this.#abort(p, { code: m.code, message: `declined by '${vertex?.name ?? m.vertexId}' subtask ${m.subtask + 1}: ${m.reason}` });
  }

  async #complete(p: PendingCheckpoint): Promise<void> {
    p.discard();
    if (this.#ended !== undefined) {
      return this.#discardIncomplete(p, { code: 'CHECKPOINT_COORDINATOR_SUSPEND', message: this.#ended });
    }
    const newer = this.store.latest();
    if (p.options.type === 'checkpoint' && newer && newer.id > p.id) {
      // Fully acknowledged after a newer checkpoint completed: it could never be restored from.
      return this.#discardIncomplete(p, { code: 'CHECKPOINT_SUBSUMED', message: `subsumed by checkpoint ${newer.id}, which completed first` });
    }
    const metadata = buildCheckpointMetadata(this.#d.jobId, this.#d.jobGraph, p, this.#d.clock.now());
    const gone = this.#shared.discarded(p.id, p.options.targetDir, [...p.acks.values()].map((a) => a.state), metadata);
    if (gone.length > 0) {
      return this.#discardIncomplete(p, { code: 'FINALIZE_CHECKPOINT_FAILURE', message: `shared state file ${gone[0]} it builds on was discarded before it completed${gone.length > 1 ? ` (and ${gone.length - 1} more)` : ''}` });
    }
    try {
      await this.#d.storage.writeMetadata(p.options.targetDir, metadata);
    } catch (e) {
      // Not complete: nothing commits, the retained checkpoints stay, and its files go.
      return this.#discardIncomplete(p, { code: 'FINALIZE_CHECKPOINT_FAILURE', message: `writing _metadata failed: ${(e as Error).message}` });
    }
    if (this.#ended !== undefined) {
      // The job ended while _metadata was being written: this one does not complete either.
      return this.#discardIncomplete(p, { code: 'CHECKPOINT_COORDINATOR_SUSPEND', message: this.#ended });
    }
    const completedAt = this.#d.clock.now();
    const checkpoint: CompletedCheckpoint = {
      id: p.id,
      type: p.options.type,
      directory: p.options.targetDir,
      triggeredAt: p.timestamp,
      completedAt,
      stateBytes: p.stats.stateSize,
      metadata,
    };
    if (p.options.type === 'checkpoint' && this.#d.publish) {
      try {
        await this.#d.publish(checkpoint);
      } catch (e) {
        // Not published: a new leader would not restore it, so nothing may commit from it.
        return this.#discardIncomplete(p, { code: 'FINALIZE_CHECKPOINT_FAILURE', message: `publishing the checkpoint pointer failed: ${(e as Error).message}` });
      }
    }
    this.stats.completed(p.stats, p.options.targetDir, completedAt);
    this.#failures.succeeded();
    this.#lastCompletion = completedAt;
    if (p.options.type === 'checkpoint') {
      if (await this.store.add(checkpoint)) this.#d.notifyComplete(p.id, { unaligned: p.stats.unaligned });
      else await this.#shared.release(p.id, [...p.acks.values()].map((a) => a.state));
    }
    // Older pending checkpoints can never be the latest now: drop them (not a failure).
    for (const older of [...this.#pending.values()]) {
      if (older.id < p.id && older.options.type === 'checkpoint') this.#abort(older, { code: 'CHECKPOINT_SUBSUMED', message: `subsumed by checkpoint ${p.id}` });
    }
    this.#d.log.info(`completed ${p.options.type} ${p.id}`, { checkpointId: p.id, durationMs: completedAt - p.timestamp, stateBytes: p.stats.stateSize, path: p.options.targetDir });
    this.#completed.set(p.id, checkpoint);
    this.#d.onCompleted?.(checkpoint);
    p.resolve();
    this.#schedule();
  }

  async #expire(p: PendingCheckpoint, timeout: number): Promise<void> {
    if (p.isDiscarded || !this.#pending.has(p.id)) return;
    const missing = p.notYetAcknowledged;
    const described = await this.#d.describeTasks().catch((): TaskDescriptions => ({ tasks: [], silent: [] }));
    if (p.isDiscarded || !this.#pending.has(p.id)) return;
    const now = this.#d.clock.now();
    const { pending, message } = expiredCheckpointReport({ id: p.id, missing, expected: this.#expected.length, timeout, now }, this.#d.jobGraph, described);
    this.#abort(p, { code: 'CHECKPOINT_EXPIRED', message, pending, at: now });
  }

  #abort(p: PendingCheckpoint, failure: CheckpointFailureReport): void {
    if (!this.#pending.delete(p.id)) return;
    p.discard();
    void this.#discardIncomplete(p, failure);
  }

  /** A checkpoint or savepoint that will never complete: its failure is recorded, subtasks are told, its files go. */
  async #discardIncomplete(p: PendingCheckpoint, failure: CheckpointFailureReport): Promise<void> {
    this.#failed(p, failure);
    this.#d.notifyAborted(p.id, failure.message);
    // A savepoint's directory is always one of its own (sp-<job>-<random>), so it goes too.
    await this.#d.storage.discard(p.options.targetDir).catch(() => {});
    await this.#shared.release(p.id, [...p.acks.values()].map((a) => a.state));
  }

  #failed(p: PendingCheckpoint, failure: CheckpointFailureReport): void {
    const isSavepoint = p.options.type === 'savepoint';
    this.stats.failed(p.stats, failure, this.#d.clock.now());
    const fatal = this.#failures.failed(p.id, isSavepoint, failure);
    (failureCounts(failure.code) ? this.#d.log.warn : this.#d.log.info)(`${p.options.type} ${p.id} failed: ${failure.message}`, { checkpointId: p.id, code: failure.code });
    this.#d.onFailed?.(p.id, failure);
    p.reject(new Error(failure.message));
    if (fatal) {
      this.#d.failJob(fatal);
      return;
    }
    this.#schedule();
  }
}
