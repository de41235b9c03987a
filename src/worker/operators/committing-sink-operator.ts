import type { Committer, PrecommittingSinkWriter, TwoPhaseCommittingSink } from '../../api/two-phase-committing-sink.ts';
import { AbstractStreamOperator, type OperatorContext } from './stream-operator.ts';
import type { CheckpointType } from '../../network/stream-event.ts';

/** Committables of one checkpoint, as kept in operator state until the checkpoint is committed. */
interface PendingCommit {
  readonly checkpointId: number;
  readonly committables: readonly unknown[];
}

/** The legacy file sink's writer state, read when a checkpoint written before the committables existed is restored. */
interface LegacyFileSinkState {
  readonly checkpointId: number;
  readonly pending: readonly unknown[];
}

const STATE_NAME = '_sink-committables';
/** The last pre-commit's id, once the input has ended: it belongs after every checkpoint. */
const AFTER_EVERY_CHECKPOINT = Number.MAX_SAFE_INTEGER;
const LEGACY_STATE_NAME = '_sink-writer';

/**
 * Runs a TwoPhaseCommittingSink (Flink's SinkWriterOperator and CommitterOperator in one): the
 * writer pre-commits in every checkpoint's synchronous part; the committables wait in operator
 * state (union: on restore every subtask sees all, commits its share and lets the committer clean
 * up the rest) until their checkpoint completes. A job that finishes without checkpoints commits
 * its finished input at the end.
 */
export class CommittingSinkOperator extends AbstractStreamOperator {
  readonly #sink: TwoPhaseCommittingSink<unknown, unknown>;
  #writer!: PrecommittingSinkWriter<unknown, unknown>;
  #committer!: Committer<unknown>;
  #ctx!: OperatorContext;
  readonly #pending = new Map<number, readonly unknown[]>();
  #ended = false;
  /** finish() closed the writer: close() has nothing to abort. */
  #finished = false;

  constructor(sink: TwoPhaseCommittingSink<unknown, unknown>) {
    super();
    this.#sink = sink;
  }

  override async open(ctx: OperatorContext): Promise<void> {
    super.open(ctx);
    this.#ctx = ctx;
    this.#committer = await this.#sink.createCommitter(ctx);
    if (ctx.operatorState.isRestored) await this.#recover(ctx);
    this.#writer = await this.#sink.createWriter(ctx);
  }

  /** The restored checkpoint's committables: all of them let the committer clean up, this subtask's share is committed. */
  async #recover(ctx: OperatorContext): Promise<void> {
    const restored = [
      ...ctx.operatorState.restoredValues<PendingCommit>(STATE_NAME).flatMap((p) => p.committables),
      ...ctx.operatorState.restoredValues<LegacyFileSinkState>(LEGACY_STATE_NAME).flatMap((s) => s.pending),
    ];
    const retained = [...new Set(restored.map((c) => JSON.stringify(c)))].sort().map((c) => JSON.parse(c) as unknown);
    await this.#committer.recover?.(retained);
    await this.#committer.commit(retained.filter((_, i) => i % ctx.parallelism === ctx.subtaskIndex));
  }

  processElement(value: unknown): void {
    this.#writer.write(value);
  }

  override ready(): Promise<void> | undefined {
    return this.#writer.ready?.();
  }

  override async endInput(): Promise<void> {
    this.#ended = true;
    await this.#writer.flush?.();
  }

  override async prepareSnapshot(checkpointId: number, type: CheckpointType): Promise<void> {
    const committables = await this.#writer.prepareCommit(checkpointId, { savepoint: type === 'savepoint' });
    if (committables.length > 0) this.#pending.set(checkpointId, committables);
    const state = [...this.#pending].map(([id, c]): PendingCommit => ({ checkpointId: id, committables: c }));
    this.#ctx.operatorState.getUnionListState<PendingCommit>(STATE_NAME).update(state);
  }

  /** Commits every checkpoint up to this one: notifications can be skipped or come late. */
  override async notifyCheckpointComplete(checkpointId: number): Promise<void> {
    for (const [id, committables] of [...this.#pending]) {
      if (id > checkpointId) continue;
      await this.#committer.commit(committables);
      this.#pending.delete(id);
    }
  }

  /** Finished: without checkpoints nothing committed the output yet, and the finished input is final. */
  override async finish(): Promise<void> {
    if (this.#ended) await this.#commitFinalInput();
    await this.#writer.close?.();
    this.#finished = true;
  }

  /** What no checkpoint committed, and a last pre-commit after every checkpoint: with the input ended nothing can fail them any more. */
  async #commitFinalInput(): Promise<void> {
    const last = await this.#writer.prepareCommit(AFTER_EVERY_CHECKPOINT);
    if (last.length > 0) this.#pending.set(AFTER_EVERY_CHECKPOINT, last);
    for (const [id, committables] of [...this.#pending]) {
      await this.#committer.commit(committables);
      this.#pending.delete(id);
    }
  }

  /** A writer that did not finish (cancellation, failure) is aborted: it commits nothing. */
  override async close(): Promise<void> {
    if (!this.#finished) await this.#writer?.abort?.();
  }
}
