import type { Source, SourceOutput, SourceReader, InputStatus } from '../../api/source.ts';
import { AbstractStreamOperator, type OperatorContext } from './stream-operator.ts';

/**
 * The head of a source task. The task drives it: pollNext between mails, and a snapshot of the
 * reader's splits only ever between two polls.
 */
export class SourceOperator extends AbstractStreamOperator {
  static readonly STATE_NAME = '_source-splits';
  readonly #source: Source<unknown, unknown>;
  #reader!: SourceReader<unknown, unknown>;
  #ctx!: OperatorContext;
  #initialSplits: unknown[] = [];
  #output!: SourceOutput<unknown>;
  /** Sources with a split enumerator: how the reader talks to it. */
  onSplitRequest: () => void = () => {};
  onReaderEvent: (event: unknown) => void = () => {};
  /** Records the reader has emitted in this attempt. */
  emitted = 0;

  constructor(source: Source<unknown, unknown>) {
    super();
    this.#source = source;
  }

  get reader(): SourceReader<unknown, unknown> {
    return this.#reader;
  }

  assignInitialSplits(splits: unknown[]): void {
    this.#initialSplits = splits;
  }

  override async open(ctx: OperatorContext): Promise<void> {
    super.open(ctx);
    this.#ctx = ctx;
    const out = ctx.output;
    this.#output = {
      collect: (value) => {
        this.emitted++;
        out.collect(value);
      },
    };
    this.#reader = this.#source.createReader({
      ...ctx,
      sendSplitRequest: () => this.onSplitRequest(),
      sendSourceEvent: (event) => this.onReaderEvent(event),
    });
    await this.#reader.start?.();
    const restored = ctx.operatorState.restoredValues<unknown>(SourceOperator.STATE_NAME);
    // A restore brings the splits with their positions; a fresh start takes the enumerated ones.
    const splits = ctx.operatorState.isRestored ? restored : this.#initialSplits;
    if (splits.length > 0) this.#reader.addSplits([...splits]);
    // An enumerator decides when there are no more splits; static splits are all there is.
    if (!this.hasEnumerator) this.#reader.notifyNoMoreSplits();
  }

  get hasEnumerator(): boolean {
    return this.#source.createEnumerator !== undefined;
  }

  /** Splits from the enumerator, delivered as mail (between two polls, in order with triggers). */
  addSplits(splits: unknown[], noMoreSplits: boolean): void {
    if (splits.length > 0) this.#reader.addSplits(splits);
    if (noMoreSplits) this.#reader.notifyNoMoreSplits();
  }

  handleSourceEvent(event: unknown): void {
    this.#reader.handleSourceEvent?.(event);
  }

  pollNext(): InputStatus {
    return this.#reader.pollNext(this.#output);
  }

  processElement(): void {
    throw new Error('a source has no input');
  }

  override prepareSnapshot(checkpointId: number): void {
    this.#ctx.operatorState.getListState<unknown>(SourceOperator.STATE_NAME).update(this.#reader.snapshotState(checkpointId));
  }

  override async notifyCheckpointComplete(checkpointId: number): Promise<void> {
    await this.#reader.notifyCheckpointComplete?.(checkpointId);
  }

  override notifyCheckpointAborted(checkpointId: number): void {
    this.#reader.notifyCheckpointAborted?.(checkpointId);
  }

  override async close(): Promise<void> {
    await this.#reader?.close?.();
  }
}
