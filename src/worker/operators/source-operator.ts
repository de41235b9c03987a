import type { Source, SourceReader, InputStatus } from '../../api/source.ts';
import type { WatermarkStrategy } from '../../api/watermark-strategy.ts';
import type { Timer } from '../../clock/clock.ts';
import { SourceWatermarks } from '../source-watermarks.ts';
import { CLOSING, READING, type SourcePhase } from './source-phase.ts';
import { AbstractStreamOperator, type OperatorContext, type Output } from './stream-operator.ts';

/** snapshotState's id when no checkpoint asks (SourceReader documents it): below every real checkpoint id. */
export const NO_CHECKPOINT = -1;

/**
 * The head of a source task. The task drives it: pollNext between mails, and a snapshot of the
 * reader's splits only ever between two polls. Timestamps and watermarks are made here, per
 * split, by the source's WatermarkStrategy; periodic watermarks are mail on the task's clock.
 */
export class SourceOperator extends AbstractStreamOperator {
  static readonly STATE_NAME = '_source-splits';
  readonly #source: Source<unknown, unknown>;
  readonly #strategy: WatermarkStrategy<unknown> | undefined;
  #reader!: SourceReader<unknown, unknown>;
  #ctx!: OperatorContext;
  #initialSplits: unknown[] = [];
  /**
   * What the enumerator sent before the reader existed, for it in order once it does: a
   * restarted subtask's mailbox runs while its operators open (a restore reads state), and an
   * enumerator that assigns at registration may be that quick. Undefined once the reader runs.
   */
  #beforeReader: ((reader: SourceReader<unknown, unknown>) => void)[] | undefined = [];
  #watermarks!: SourceWatermarks;
  #periodic: Timer | undefined;
  #alignmentTimer: Timer | undefined;
  /** Whole-reader pausing (a reader without pauseOrResumeSplits) by watermark alignment. */
  #readerPaused = false;
  #phase: SourcePhase = READING;
  readonly #unconsumedTags = new Set<string>();
  /** Sources with a split enumerator: how the reader talks to it. */
  onSplitRequest: () => void = () => {};
  onReaderEvent: (event: unknown) => void = () => {};
  /** Watermark alignment: this reader's watermark for its group, every update interval. */
  onWatermarkReport: (group: string, watermark: number) => void = () => {};
  /** Watermark alignment: whether the whole reader must stop reading (it cannot pause splits). */
  onAlignmentPause: (paused: boolean) => void = () => {};
  /** Records the reader has emitted in this attempt. */
  get emitted(): number {
    return this.#watermarks?.records ?? 0;
  }

  constructor(source: Source<unknown, unknown>, watermarks?: WatermarkStrategy<unknown>) {
    super();
    this.#source = source;
    this.#strategy = watermarks;
  }

  get reader(): SourceReader<unknown, unknown> {
    return this.#reader;
  }

  get strategy(): WatermarkStrategy<unknown> | undefined {
    return this.#strategy;
  }

  assignInitialSplits(splits: unknown[]): void {
    this.#initialSplits = splits;
  }

  override async open(ctx: OperatorContext): Promise<void> {
    super.open(ctx);
    this.#ctx = ctx;
    this.#watermarks = new SourceWatermarks({
      strategy: this.#strategy,
      time: ctx.timestamps,
      records: ctx.output,
      eventTime: ctx.eventTimeOutput,
      sideOutput: (tagId) => this.#sideOutput(tagId),
      now: () => ctx.processingTime.now(),
      operator: ctx.operatorName,
      uid: ctx.operatorUid,
    });
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
    const early = this.#beforeReader ?? [];
    this.#beforeReader = undefined;
    for (const deliver of early) deliver(this.#reader);
    if (this.#watermarks.generates && ctx.autoWatermarkInterval > 0) this.#schedulePeriodic();
    if (this.#strategy?.alignment) this.#scheduleAlignmentReport();
  }

  /** Side records nothing consumes are dropped, with one warning per tag. */
  #sideOutput(tagId: string): Output | undefined {
    const target = this.#ctx.sideOutput(tagId);
    if (target === undefined && !this.#unconsumedTags.has(tagId)) {
      this.#unconsumedTags.add(tagId);
      this.#ctx.log.warn(`records emitted to side output ${tagId} are dropped: nothing consumes it (add fromSource(...).getSideOutput(tag) to the job)`);
    }
    return target;
  }

  #schedulePeriodic(): void {
    const time = this.#ctx.processingTime;
    this.#periodic = time.registerTimer(time.now() + this.#ctx.autoWatermarkInterval, 'periodic watermark', () => {
      this.#watermarks.emitPeriodic();
      this.#schedulePeriodic();
    });
  }

  #scheduleAlignmentReport(): void {
    const alignment = this.#strategy!.alignment!;
    const time = this.#ctx.processingTime;
    this.#alignmentTimer = time.registerTimer(time.now() + alignment.updateInterval, 'watermark alignment report', () => {
      this.onWatermarkReport(alignment.group, this.#watermarks.alignmentWatermark());
      this.#scheduleAlignmentReport();
    });
  }

  /** The group's slowest source plus the allowed drift: splits beyond it stop, those back within it go on. */
  updateMaxAllowedWatermark(maxAllowed: number): void {
    const reader = this.#reader;
    if (reader.pauseOrResumeSplits) {
      const { pause, resume } = this.#watermarks.alignmentChanges(maxAllowed);
      if (pause.length > 0 || resume.length > 0) reader.pauseOrResumeSplits(pause, resume);
      return;
    }
    const ahead = this.#watermarks.alignmentWatermark() > maxAllowed && this.#watermarks.alignmentWatermark() !== Infinity;
    if (ahead !== this.#readerPaused) {
      this.#readerPaused = ahead;
      this.onAlignmentPause(ahead);
    }
  }

  get hasEnumerator(): boolean {
    return this.#source.createEnumerator !== undefined;
  }

  /** The watermark this source has sent downstream. */
  get currentWatermark(): number {
    return this.#watermarks.watermark;
  }

  /** Splits from the enumerator, delivered as mail (between two polls, in order with triggers). */
  addSplits(splits: unknown[], noMoreSplits: boolean): void {
    this.#toReader((reader) => {
      if (splits.length > 0) reader.addSplits(splits);
      if (noMoreSplits) reader.notifyNoMoreSplits();
    });
  }

  handleSourceEvent(event: unknown): void {
    this.#toReader((reader) => reader.handleSourceEvent?.(event));
  }

  #toReader(deliver: (reader: SourceReader<unknown, unknown>) => void): void {
    if (this.#beforeReader) this.#beforeReader.push(deliver);
    else deliver(this.#reader);
  }

  pollNext(): InputStatus {
    return this.#reader.pollNext(this.#watermarks.readerOutput);
  }

  processElement(): void {
    throw new Error('a source has no input');
  }

  /** The end of input (or a drain): the end of event time goes downstream, and periodic watermarks stop. */
  override processWatermark(watermark: number): void {
    if (watermark !== Infinity) return;
    this.#stopTimers();
    this.#watermarks.finish();
    // A finished reader holds its alignment group back no more.
    const alignment = this.#strategy?.alignment;
    if (alignment) this.onWatermarkReport(alignment.group, Infinity);
  }

  /** The reader's splits as they stand now, outside any checkpoint: an at-most-once restart goes on from them. */
  currentPositions(): unknown[] {
    return this.#reader.snapshotState(NO_CHECKPOINT);
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

  #stopTimers(): void {
    this.#periodic?.cancel();
    this.#alignmentTimer?.cancel();
    this.#periodic = this.#alignmentTimer = undefined;
  }

  /** What a failure of the reader means now (see SourcePhase). */
  get phase(): SourcePhase {
    return this.#phase;
  }

  override async close(): Promise<void> {
    this.#phase = CLOSING;
    this.#stopTimers();
    await this.#reader?.close?.();
  }
}
