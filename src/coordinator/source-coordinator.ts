import type { CheckpointCompletion, EnumeratorContext, Source, SplitEnumerator } from '../api/source.ts';
import type { JobVertex } from '../graph/job-graph.ts';
import type { Stoppable, StopReason } from '../lifecycle/service.ts';
import type { Logger } from '../log/logger.ts';
import type { TaskExecutorGateway } from '../rpc/task-executor-gateway.ts';

export interface SourceCoordinatorDeps {
  readonly jobId: string;
  readonly attempt: number;
  readonly checkpointing: boolean;
  readonly log: Logger;
  /** The slot executor that runs the subtask. */
  readonly executorOf: (subtask: number) => TaskExecutorGateway;
  readonly failJob: (error: Error) => void;
  readonly setBacklog: (backlog: boolean) => void;
}

/** An enumerator's handler failed: the job fails over to its last checkpoint. */
export class SplitEnumeratorError extends Error {
  readonly vertex: string;
  readonly uid: string;
  /** As its cause: an enumerator that cannot start as configured fails the job without restarts. */
  readonly unrecoverable: boolean;
  constructor(vertex: string, uid: string, what: string, cause: unknown) {
    super(`split enumerator of source '${vertex}' (uid ${uid}) failed while ${what}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'SplitEnumeratorError';
    this.vertex = vertex;
    this.uid = uid;
    this.unrecoverable = (cause as { unrecoverable?: unknown } | undefined)?.unrecoverable === true;
  }
}

/**
 * Runs one source's split enumerator on the JobMaster for one attempt (Flink's SourceCoordinator).
 * Handlers run one at a time, in arrival order; the snapshot is synchronous and taken right before
 * the checkpoint's trigger messages are sent, so every split it assigned before the snapshot
 * reaches its reader before that checkpoint's trigger does. Its start() runs on that queue (the
 * deployment does not wait for it); once stopped, nothing more goes out or fails the job.
 */
export class SourceCoordinator implements Stoppable {
  readonly vertex: JobVertex;
  readonly uid: string;
  readonly #enumerator: SplitEnumerator<unknown, unknown>;
  readonly #d: SourceCoordinatorDeps;
  #queue: Promise<void> = Promise.resolve();
  /** stop() has begun: what it awaits (a second stop waits for the first). */
  #stopping: Promise<void> | undefined;

  constructor(vertex: JobVertex, source: Source<unknown, unknown, unknown>, restored: unknown, deps: SourceCoordinatorDeps) {
    this.vertex = vertex;
    this.uid = vertex.operators[0]!.uid;
    this.#d = deps;
    const base = { attempt: deps.attempt, vertexId: vertex.id };
    const ctx: EnumeratorContext<unknown> = {
      jobId: deps.jobId,
      parallelism: vertex.parallelism,
      checkpointing: deps.checkpointing,
      log: deps.log.child({ vertex: vertex.name }),
      assignSplits: (subtask, splits) => this.#readerOf(subtask)?.addSplits({ ...base, subtask, splits, noMoreSplits: false }),
      signalNoMoreSplits: (subtask) => this.#readerOf(subtask)?.addSplits({ ...base, subtask, splits: [], noMoreSplits: true }),
      sendEventToReader: (subtask, event) => this.#readerOf(subtask)?.sendSourceEvent({ ...base, subtask, event }),
      failJob: (e) => this.#fail('running', e),
      setProcessingBacklog: (backlog) => {
        if (!this.#stopping) deps.setBacklog(backlog);
      },
    };
    this.#enumerator = source.createEnumerator!(ctx, restored);
  }

  start(): void {
    this.#run('starting', () => this.#enumerator.start?.());
  }

  handleSplitRequest(subtask: number): void {
    this.#run(`answering a split request of subtask ${subtask + 1}`, () => this.#enumerator.handleSplitRequest(subtask));
  }

  handleReaderEvent(subtask: number, event: unknown): void {
    this.#run(`handling an event of subtask ${subtask + 1}`, () => this.#enumerator.handleSourceEvent?.(subtask, event));
  }

  snapshotState(checkpointId: number): unknown {
    return this.#enumerator.snapshotState(checkpointId);
  }

  notifyCheckpointComplete(checkpointId: number, completion?: CheckpointCompletion): void {
    this.#run(`handling the completion of checkpoint ${checkpointId}`, () => this.#enumerator.notifyCheckpointComplete?.(checkpointId, completion));
  }

  metrics(): Record<string, number> {
    return this.#enumerator.metrics?.() ?? {};
  }

  stop(_reason: StopReason): Promise<void> {
    // Set before the enumerator is closed: what it does while closing goes out no more.
    this.#stopping ??= Promise.resolve().then(() => this.#stop());
    return this.#stopping;
  }

  async #stop(): Promise<void> {
    this.#d.setBacklog(false);
    // The enumerator first: closing its connections ends a handler stuck in a query, so the queue drains.
    await this.#enumerator.close?.();
    await this.#queue;
  }

  /** The executor of the reader an enumerator addresses; none once stopping. */
  #readerOf(subtask: number): TaskExecutorGateway | undefined {
    if (this.#stopping) return undefined;
    if (subtask < 0 || subtask >= this.vertex.parallelism) {
      throw new RangeError(`source '${this.vertex.name}' has ${this.vertex.parallelism} subtask(s); the enumerator addressed subtask index ${subtask}`);
    }
    return this.#d.executorOf(subtask);
  }

  #run(what: string, fn: () => void | Promise<void>): void {
    this.#queue = this.#queue.then(async () => {
      if (this.#stopping) return;
      try {
        await fn();
      } catch (e) {
        this.#fail(what, e);
      }
    });
  }

  #fail(what: string, e: unknown): void {
    if (this.#stopping) return;
    const error = new SplitEnumeratorError(this.vertex.name, this.uid, what, e);
    this.#d.log.error(error.message, { vertex: this.vertex.name });
    this.#d.failJob(error);
  }
}
