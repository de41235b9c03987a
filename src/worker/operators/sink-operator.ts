import type { Sink, SinkWriter } from '../../api/sink.ts';
import { AbstractStreamOperator, type OperatorContext } from './stream-operator.ts';

/** Hands records to a sink writer; the writer's state (e.g. pending transactions) is operator list state. */
export class SinkOperator extends AbstractStreamOperator {
  static readonly STATE_NAME = '_sink-writer';
  readonly #sink: Sink<unknown, unknown>;
  #writer!: SinkWriter<unknown, unknown>;
  #ctx!: OperatorContext;
  /** finish() closed the writer: close() has nothing to abort. */
  #finished = false;

  constructor(sink: Sink<unknown, unknown>) {
    super();
    this.#sink = sink;
  }

  override async open(ctx: OperatorContext): Promise<void> {
    super.open(ctx);
    this.#ctx = ctx;
    const restored = ctx.operatorState.restoredValues(SinkOperator.STATE_NAME);
    this.#writer = await this.#sink.createWriter(ctx, restored);
  }

  processElement(value: unknown): void {
    this.#writer.write(value);
  }

  override ready(): Promise<void> | undefined {
    return this.#writer.ready?.();
  }

  override async endInput(): Promise<void> {
    await this.#writer.flush?.();
  }

  override async prepareSnapshot(checkpointId: number): Promise<void> {
    if (!this.#writer.snapshotState) return;
    const state = await this.#writer.snapshotState(checkpointId);
    const ops = this.#ctx.operatorState;
    const list = this.#sink.stateRedistribution === 'union' ? ops.getUnionListState<unknown>(SinkOperator.STATE_NAME) : ops.getListState<unknown>(SinkOperator.STATE_NAME);
    list.update(state);
  }

  override async notifyCheckpointComplete(checkpointId: number): Promise<void> {
    await this.#writer.notifyCheckpointComplete?.(checkpointId);
  }

  override async notifyCheckpointAborted(checkpointId: number): Promise<void> {
    await this.#writer.notifyCheckpointAborted?.(checkpointId);
  }

  override async finish(): Promise<void> {
    await this.#writer.close?.();
    this.#finished = true;
  }

  /** A writer that did not finish (cancellation, failure) is aborted: it commits nothing. */
  override async close(): Promise<void> {
    if (!this.#finished) await this.#writer?.abort?.();
  }
}
