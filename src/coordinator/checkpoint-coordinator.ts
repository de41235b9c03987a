import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { CheckpointMetadata, OperatorStateMetadata } from '../checkpoint/checkpoint-metadata.ts';
import { METADATA_VERSION, writeMetadata } from '../checkpoint/checkpoint-metadata.ts';
import type { WeirConfig } from '../config/configuration.ts';
import { formatDuration } from '../config/duration.ts';
import type { JobGraph } from '../graph/job-graph.ts';
import type { Logger } from '../log/logger.ts';
import type { FromTaskManager, TaskMetrics } from '../network/control-messages.ts';
import type { CheckpointOptions, CheckpointType } from '../network/stream-event.ts';
import { CheckpointFailureError } from './checkpoint-failure.ts';
import { CheckpointStatsTracker } from './checkpoint-stats.ts';
import type { CompletedCheckpoint } from './completed-checkpoint.ts';
import { CompletedCheckpointStore } from './completed-checkpoint-store.ts';
import { PendingCheckpoint } from './pending-checkpoint.ts';

export interface CheckpointCoordinatorDeps {
  readonly jobId: string;
  readonly config: WeirConfig;
  readonly jobGraph: JobGraph;
  readonly log: Logger;
  readonly triggerSources: (checkpointId: number, timestamp: number, options: CheckpointOptions) => void;
  /** The sources' split enumerator states, by uid; called synchronously just before triggerSources. */
  readonly snapshotCoordinators?: (checkpointId: number) => Record<string, unknown>;
  readonly notifyComplete: (checkpointId: number) => void;
  readonly notifyAborted: (checkpointId: number, reason: string) => void;
  /** What each subtask is doing right now (for the reason of an expired checkpoint). */
  readonly describeTasks: () => Promise<{ tasks: TaskMetrics[]; silent: number[] }>;
  /** Too many consecutive checkpoint failures: fail the job over. */
  readonly failJob: (error: Error) => void;
  readonly onCompleted?: (checkpoint: CompletedCheckpoint) => void;
  readonly onFailed?: (checkpointId: number, reason: string) => void;
}

export interface TriggerRequest {
  readonly type: CheckpointType;
  /** Savepoints: the directory to write to. */
  readonly targetDir?: string;
  /** Take it even if the periodic rules would not (savepoints, the final checkpoint). */
  readonly force?: boolean;
}

/**
 * The JobMaster's checkpoint coordinator (DESIGN §4): triggers checkpoints at the sources,
 * collects one acknowledgement per subtask, writes `_metadata` when all are in, and tells every
 * subtask the checkpoint is complete. Expired and declined checkpoints are counted against the
 * tolerable failures, each with its reason.
 */
export class CheckpointCoordinator {
  readonly stats = new CheckpointStatsTracker();
  readonly store: CompletedCheckpointStore;
  readonly #d: CheckpointCoordinatorDeps;
  readonly #pending = new Map<number, PendingCheckpoint>();
  readonly #expected: string[];
  #nextId = 1;
  #timer: NodeJS.Timeout | undefined;
  #running = false;
  #lastTrigger = 0;
  #lastCompletion = 0;
  #consecutiveFailures = 0;
  readonly #backlog = new Set<string>();
  /** `<execution.checkpointing.dir>/<job-id>`: where chk-N directories go. */
  #jobDir = '';

  constructor(deps: CheckpointCoordinatorDeps) {
    this.#d = deps;
    this.store = new CompletedCheckpointStore(deps.config['execution.checkpointing.num-retained'], deps.log);
    this.#expected = deps.jobGraph.vertices.flatMap((v) => Array.from({ length: v.parallelism }, (_, i) => `${v.id}:${i}`));
  }

  get periodic(): boolean {
    const c = this.#d.config;
    return c['execution.checkpointing.interval'] !== null && c['execution.checkpointing.mode'] !== 'at-most-once';
  }

  setJobDir(dir: string): void {
    this.#jobDir = dir;
  }

  /** Continue numbering after a restored checkpoint, as Flink does. */
  setNextId(id: number): void {
    this.#nextId = Math.max(this.#nextId, id);
  }

  get pendingCount(): number {
    return this.#pending.size;
  }

  /**
   * Resolves once every checkpoint that was fully acknowledged has been finalized: stop() aborts
   * only the ones still waiting for acknowledgements, so one may still be writing its _metadata.
   */
  settled(): Promise<void> {
    return this.#completions.catch(() => {});
  }

  /** Resolves once no checkpoint triggered so far is in flight any more (completed, failed or aborted). */
  inFlightSettled(): Promise<void> {
    return Promise.allSettled([...this.#pending.values()].map((p) => p.done)).then(() => this.settled());
  }

  /** Tasks are all running: periodic checkpoints may be triggered. */
  start(): void {
    this.#running = true;
    this.#schedule();
  }

  /** A failover or the end of the job: no new triggers; pending checkpoints are aborted. */
  stop(reason: string): void {
    this.stopPeriodic();
    for (const p of [...this.#pending.values()]) this.#abort(p, reason, false);
  }

  /** No more periodic triggers; checkpoints in flight may still complete (end of input). */
  stopPeriodic(): void {
    this.#running = false;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** A source (by vertex id) is catching up on a backlog, as its split enumerator says (FLIP-309). */
  setBacklog(sourceVertexId: string, backlog: boolean): void {
    if (backlog) this.#backlog.add(sourceVertexId);
    else this.#backlog.delete(sourceVertexId);
    this.#schedule();
  }

  #interval(): number | null {
    const c = this.#d.config;
    const base = c['execution.checkpointing.interval'];
    const during = c['execution.checkpointing.interval-during-backlog'];
    if (this.#backlog.size > 0 && during !== null) return during === 0 ? null : during;
    return base;
  }

  #schedule(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (!this.#running || !this.periodic) return;
    const interval = this.#interval();
    if (interval === null) return;
    const c = this.#d.config;
    const now = Date.now();
    const at = Math.max(this.#lastTrigger + interval, this.#lastCompletion + c['execution.checkpointing.min-pause'], now);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (this.#pending.size >= c['execution.checkpointing.max-concurrent-checkpoints']) return;
      this.trigger({ type: 'checkpoint' }).catch(() => {});
      this.#schedule();
    }, at - now);
    this.#timer.unref();
  }

  trigger(request: TriggerRequest): Promise<CompletedCheckpoint> {
    const c = this.#d.config;
    if (!this.#running && !request.force) return Promise.reject(new Error('the job is not running'));
    const id = this.#nextId++;
    const timestamp = Date.now();
    const unaligned = request.type === 'checkpoint' && c['execution.checkpointing.unaligned.enabled'];
    const targetDir = request.targetDir ?? join(this.#jobDir, `chk-${id}`);
    const options: CheckpointOptions = {
      type: request.type,
      unaligned: unaligned && c['execution.checkpointing.aligned-checkpoint-timeout'] === 0,
      alignedTimeout: unaligned ? c['execution.checkpointing.aligned-checkpoint-timeout'] : 0,
      targetDir,
    };
    const stats = this.stats.triggered(id, request.type === 'savepoint', timestamp, this.#expected.length);
    const pending = new PendingCheckpoint(id, timestamp, options, this.#expected, stats);
    this.#pending.set(id, pending);
    this.#lastTrigger = timestamp;
    const timeout = c['execution.checkpointing.timeout'];
    pending.timer = setTimeout(() => void this.#expire(pending, timeout), timeout);
    pending.timer.unref();
    this.#d.log.info(`triggering ${request.type} ${id}`, { checkpointId: id });
    // No await between the two: an enumerator's assignment is either in its snapshot or after the trigger.
    pending.coordinators = this.#d.snapshotCoordinators?.(id) ?? {};
    this.#d.triggerSources(id, timestamp, options);
    return pending.done.then(() => this.#completedById(id));
  }

  #completed = new Map<number, CompletedCheckpoint>();
  #completions: Promise<void> = Promise.resolve();
  #completedById(id: number): CompletedCheckpoint {
    const cp = this.#completed.get(id)!;
    this.#completed.delete(id);
    return cp;
  }

  receiveAck(m: Extract<FromTaskManager, { type: 'ack-checkpoint' }>): void {
    const p = this.#pending.get(m.checkpointId);
    if (!p) return;
    const task = `${m.vertexId}:${m.subtask}`;
    if (p.acknowledge(task, m.state, m.figures) !== 'SUCCESS') return;
    this.stats.acknowledged(p.stats, { ...m.figures, vertexId: m.vertexId, subtask: m.subtask, ackTimestamp: Date.now() });
    if (p.isFullyAcknowledged) {
      // Finalize in acknowledgement order, so a slow _metadata write cannot reorder completions.
      this.#pending.delete(p.id);
      this.#completions = this.#completions.then(() => this.#complete(p));
    }
  }

  receiveDecline(m: Extract<FromTaskManager, { type: 'decline-checkpoint' }>): void {
    const p = this.#pending.get(m.checkpointId);
    if (!p) return;
    const vertex = this.#d.jobGraph.vertices.find((v) => v.id === m.vertexId);
    this.#abort(p, `declined by '${vertex?.name ?? m.vertexId}' subtask ${m.subtask + 1}: ${m.reason}`, m.counts);
  }

  async #complete(p: PendingCheckpoint): Promise<void> {
    p.discard();
    const newer = this.store.latest();
    if (p.options.type === 'checkpoint' && newer && newer.id > p.id) {
      // Fully acknowledged after a newer checkpoint completed: it could never be restored from.
      await this.#discardIncomplete(p, `subsumed by checkpoint ${newer.id}, which completed first`, false);
      return;
    }
    const metadata = this.#metadata(p);
    try {
      await writeMetadata(p.options.targetDir, metadata);
    } catch (e) {
      // Not complete: nothing commits, the retained checkpoints stay, and its files go.
      await this.#discardIncomplete(p, `writing _metadata failed: ${(e as Error).message}`, true);
      return;
    }
    const completedAt = Date.now();
    const checkpoint: CompletedCheckpoint = {
      id: p.id,
      type: p.options.type,
      directory: p.options.targetDir,
      triggeredAt: p.timestamp,
      completedAt,
      stateBytes: p.stats.stateSize,
      metadata,
    };
    this.stats.completed(p.stats, p.options.targetDir, completedAt);
    this.#consecutiveFailures = 0;
    this.#lastCompletion = completedAt;
    if (p.options.type === 'checkpoint' && (await this.store.add(checkpoint))) this.#d.notifyComplete(p.id);
    // Older pending checkpoints can never be the latest now: drop them (not a failure).
    for (const older of [...this.#pending.values()]) if (older.id < p.id && older.options.type === 'checkpoint') this.#abort(older, `subsumed by checkpoint ${p.id}`, false);
    this.#d.log.info(`completed ${p.options.type} ${p.id}`, {
      checkpointId: p.id,
      durationMs: completedAt - p.timestamp,
      stateBytes: p.stats.stateSize,
      path: p.options.targetDir,
    });
    this.#completed.set(p.id, checkpoint);
    this.#d.onCompleted?.(checkpoint);
    p.resolve();
    this.#schedule();
  }

  #metadata(p: PendingCheckpoint): CheckpointMetadata {
    const operators: OperatorStateMetadata[] = [];
    for (const vertex of this.#d.jobGraph.vertices) {
      for (const op of vertex.operators) {
        const subtasks = [];
        for (let s = 0; s < vertex.parallelism; s++) {
          const ack = p.acks.get(`${vertex.id}:${s}`)!;
          const state = ack.state.operators.find((o) => o.uid === op.uid);
          if (!state) continue;
          subtasks.push({
            subtask: s,
            keyed: state.keyed,
            operator: state.operator,
            ...(op.index === 0 ? { inputChannels: ack.state.inputChannels, outputChannels: ack.state.outputChannels } : {}),
          });
        }
        operators.push({
          uid: op.uid,
          operatorId: op.operatorId,
          name: op.name,
          vertexId: vertex.id,
          parallelism: vertex.parallelism,
          maxParallelism: vertex.maxParallelism,
          subtasks,
        });
      }
    }
    return {
      formatVersion: METADATA_VERSION,
      jobId: this.#d.jobId,
      checkpointId: p.id,
      type: p.options.type,
      unaligned: p.stats.unaligned,
      triggeredAt: p.timestamp,
      completedAt: Date.now(),
      operators,
      edges: this.#d.jobGraph.edges.map((e) => ({ id: e.id, source: e.source.id, target: e.target.id, partitioner: e.partitioner.kind })),
      coordinators: p.coordinators,
    };
  }

  async #expire(p: PendingCheckpoint, timeout: number): Promise<void> {
    if (p.isDiscarded || !this.#pending.has(p.id)) return;
    const missing = p.notYetAcknowledged;
    const { tasks, silent } = await this.#d.describeTasks().catch(() => ({ tasks: [] as TaskMetrics[], silent: [] as number[] }));
    if (p.isDiscarded || !this.#pending.has(p.id)) return;
    const lines = missing.map((key) => {
      const [vertexId, sub] = key.split(':') as [string, string];
      const vertex = this.#d.jobGraph.vertices.find((v) => v.id === vertexId);
      const info = tasks.find((t) => t.vertexId === vertexId && t.subtask === Number(sub));
      const doing = info ? info.activity : 'no answer from its TaskManager (its thread may be blocked inside a synchronous call)';
      return `'${vertex?.name ?? vertexId}' subtask ${Number(sub) + 1}/${vertex?.parallelism ?? '?'}: ${doing}`;
    });
    const silentNote = silent.length > 0 ? `; TaskManager ${silent.join(', ')} did not answer` : '';
    const reason = `checkpoint ${p.id} expired after ${formatDuration(timeout)} before completing: ${missing.length} of ${this.#expected.length} subtasks had not acknowledged — ${lines.join('; ')}${silentNote}`;
    this.#abort(p, reason, true);
  }

  #abort(p: PendingCheckpoint, reason: string, counts: boolean): void {
    if (!this.#pending.delete(p.id)) return;
    p.discard();
    void this.#discardIncomplete(p, reason, counts);
  }

  /** A checkpoint or savepoint that will never complete: its failure is recorded, subtasks are told, its files go. */
  async #discardIncomplete(p: PendingCheckpoint, reason: string, counts: boolean): Promise<void> {
    this.#failed(p, reason, counts);
    this.#d.notifyAborted(p.id, reason);
    // A savepoint's directory is always one of its own (sp-<job>-<random>), so it goes too.
    await rm(p.options.targetDir, { recursive: true, force: true }).catch(() => {});
  }

  #failed(p: PendingCheckpoint, reason: string, counts: boolean): void {
    this.stats.failed(p.stats, reason, Date.now());
    (counts ? this.#d.log.warn : this.#d.log.info)(`${p.options.type} ${p.id} failed: ${reason}`, { checkpointId: p.id });
    this.#d.onFailed?.(p.id, reason);
    p.reject(new Error(reason));
    if (counts && p.options.type === 'checkpoint') {
      this.#consecutiveFailures++;
      const tolerable = this.#d.config['execution.checkpointing.tolerable-failed-checkpoints'];
      if (this.#consecutiveFailures > tolerable) {
        const failures = this.#consecutiveFailures;
        this.#consecutiveFailures = 0;
        this.#d.failJob(new CheckpointFailureError(p.id, failures, tolerable, reason));
        return;
      }
    }
    this.#schedule();
  }
}
