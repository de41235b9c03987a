import type { CheckpointCompletion, Source } from '../api/source.ts';
import type { JobGraph, JobVertex } from '../graph/job-graph.ts';
import { taskKey, type TaskKey } from '../ids/task-key.ts';
import type { Stoppable, StopReason } from '../lifecycle/service.ts';
import type { Logger } from '../log/logger.ts';
import type { TaskExecutorGateway } from '../rpc/task-executor-gateway.ts';
import { SourceCoordinator } from './source-coordinator.ts';

export interface SourceCoordinatorsDeps {
  readonly jobId: string;
  readonly graph: JobGraph;
  readonly checkpointing: boolean;
  /** At-most-once: restarts go on from where the readers were, not from a checkpoint. */
  readonly atMostOnce: boolean;
  readonly log: Logger;
  /** The slot executor that runs a subtask. */
  readonly executorOf: (vertexId: string, subtask: number) => TaskExecutorGateway;
  readonly failJob: (attempt: number, error: Error) => void;
  readonly setBacklog: (vertexId: string, backlog: boolean) => void;
}

function sourceOf(vertex: JobVertex): Source<unknown, unknown> {
  return (vertex.operators[0]!.spec as { source: Source<unknown, unknown> }).source;
}

/**
 * The job's sources, seen from the JobMaster: the split enumerators of the current attempt (one
 * per source that has one), what they restore from, and the splits of static sources (the
 * enumerated ones of a fresh start, or at-most-once the positions the readers last reported).
 * Started per attempt (start(attempt) stops the previous attempt's enumerators first), stopped on
 * a failover and when the job ends.
 */
export class SourceCoordinators implements Stoppable {
  readonly #d: SourceCoordinatorsDeps;
  readonly #running = new Map<string, SourceCoordinator>();
  readonly #initialSplits = new Map<string, unknown[]>();
  /** Enumerator states the next attempt starts from, by source uid (undefined: afresh). */
  #restored: Record<string, unknown> | undefined;
  readonly #logged = new Set<string>();

  constructor(deps: SourceCoordinatorsDeps) {
    this.#d = deps;
  }

  /** The next attempt's enumerators start from these states (a restore), or afresh. */
  restoreFrom(states: Record<string, unknown> | undefined): void {
    this.#restored = states;
  }

  /** A failover: at-most-once keeps the enumerators where they are (as the readers' positions are kept). */
  keepForRestart(): void {
    if (this.#d.atMostOnce) this.#restored = this.snapshot(-1);
  }

  /** One split enumerator per source that has one, for this attempt. */
  async start(attempt: number): Promise<void> {
    await this.stop({ code: 'replaced' });
    for (const vertex of this.#d.graph.vertices.filter((v) => v.isSource)) {
      const source = sourceOf(vertex);
      if (!source.createEnumerator) continue;
      const coordinator = new SourceCoordinator(vertex, source, this.#restored?.[vertex.operators[0]!.uid], {
        jobId: this.#d.jobId,
        attempt,
        checkpointing: this.#d.checkpointing,
        log: this.#d.log,
        executorOf: (subtask) => this.#d.executorOf(vertex.id, subtask),
        failJob: (e) => this.#d.failJob(attempt, e),
        setBacklog: (backlog) => this.#d.setBacklog(vertex.id, backlog),
      });
      this.#running.set(vertex.id, coordinator);
      coordinator.start();
    }
  }

  /** The current attempt's enumerators stop (a failover, the end of the job); a later start(attempt) makes new ones. */
  async stop(reason: StopReason): Promise<void> {
    const running = [...this.#running.values()];
    this.#running.clear();
    await Promise.all(running.map((c) => c.stop(reason).catch((e: Error) => this.#d.log.warn(`closing the split enumerator of '${c.vertex.name}': ${e.message}`))));
  }

  get(vertexId: string): SourceCoordinator | undefined {
    return this.#running.get(vertexId);
  }

  /** Taken synchronously right before a checkpoint's trigger messages go out. */
  snapshot(checkpointId: number): Record<string, unknown> {
    return Object.fromEntries([...this.#running.values()].map((c) => [c.uid, c.snapshotState(checkpointId)]));
  }

  notifyCheckpointComplete(checkpointId: number, completion?: CheckpointCompletion): void {
    for (const c of this.#running.values()) c.notifyCheckpointComplete(checkpointId, completion);
  }

  /** The enumerators' progress figures, by source vertex id. */
  metrics(): Record<string, Record<string, number>> {
    return Object.fromEntries([...this.#running].map(([id, c]) => [id, c.metrics()]));
  }

  /**
   * Each source subtask's splits for an attempt: none for sources with an enumerator (readers
   * ask), at-most-once after a failure the positions readers last reported, else the enumerated
   * splits of a fresh start (split i to subtask i mod parallelism; a restore brings its own).
   */
  async splits(positions: ReadonlyMap<TaskKey, unknown[]>, restarted: boolean): Promise<Map<string, unknown[][]>> {
    const out = new Map<string, unknown[][]>();
    for (const vertex of this.#d.graph.vertices.filter((v) => v.isSource)) out.set(vertex.id, await this.#splitsOf(vertex, positions, restarted));
    return out;
  }

  async #splitsOf(vertex: JobVertex, positions: ReadonlyMap<TaskKey, unknown[]>, restarted: boolean): Promise<unknown[][]> {
    const perSubtask: unknown[][] = Array.from({ length: vertex.parallelism }, () => []);
    const source = sourceOf(vertex);
    const initial = source.createEnumerator ? [] : await this.#initial(vertex, source);
    if (this.#d.atMostOnce && restarted) {
      const lists = perSubtask.map((_, s) => positions.get(taskKey(vertex.id, s)));
      if (lists.some((l) => l === undefined)) this.#d.log.warn(`no final position from every subtask of '${vertex.name}': restarting those from their last known position`);
      if (lists.some((l) => l !== undefined)) return lists.map((l, s) => l ?? initial.filter((_, i) => i % vertex.parallelism === s));
    }
    initial.forEach((split, i) => perSubtask[i % vertex.parallelism]!.push(split));
    return perSubtask;
  }

  async #initial(vertex: JobVertex, source: Source<unknown, unknown>): Promise<unknown[]> {
    let splits = this.#initialSplits.get(vertex.id);
    if (!splits) {
      splits = await source.createSplits({ parallelism: vertex.parallelism });
      this.#initialSplits.set(vertex.id, splits);
    }
    return splits;
  }

  /** A source's snapshot progress with each checkpoint (a CDC snapshot), once finished once: logs show it when no terminal does. */
  logProgress(checkpointId: number): void {
    for (const [vertexId, figures] of Object.entries(this.metrics())) {
      if (figures['snapshot_done'] === undefined || this.#logged.has(vertexId)) continue;
      const vertex = this.#d.graph.vertices.find((v) => v.id === vertexId)?.name ?? vertexId;
      if (figures['snapshot_done'] === 0) {
        this.#d.log.info(`snapshot progress of '${vertex}'`, { checkpointId, vertex, ...figures });
        continue;
      }
      this.#logged.add(vertexId);
      this.#d.log.info(`snapshot of '${vertex}' finished: ${figures['snapshot_chunks_finished']} chunks, ${figures['snapshot_rows_read']} rows`, { checkpointId, vertex, ...figures });
    }
  }
}
