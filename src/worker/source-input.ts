import type { DataInputStatus } from './data-input-status.ts';
import type { MailboxProcessor } from './mailbox-processor.ts';
import type { SourceOperator } from './operators/source-operator.ts';
import type { TaskInput } from './task-input.ts';
import { encodeWatermark, type WireWatermark } from '../network/wire-watermark.ts';

/**
 * A source task's input: one pollNext of its reader at a time, only ever between two mails, so a
 * snapshot of the reader's splits falls between two polls. A reader with nothing to give
 * suspends the input until it says it has more.
 */
export class SourceInput implements TaskInput {
  readonly operator: SourceOperator;
  readonly stepBudget = 16;
  readonly inPoolUsage = 0;
  /** The source operator makes the task's watermarks itself. */
  readonly inputWatermark = undefined;
  readonly runningActivity = 'reading';
  /** A source's end of input always ends event time: the task sends the final watermark. */
  readonly eventTimeEnded = false;
  readonly source = this;
  readonly #mailbox: MailboxProcessor;
  readonly #fail: (error: unknown) => void;

  /** `toEnumerator`: the reader's requests and events for its split enumerator, on their way to the JobMaster. */
  constructor(
    operator: SourceOperator,
    splits: unknown[],
    toEnumerator: (message: { type: 'requestSplit' } | { type: 'sendReaderEvent'; event: unknown } | { type: 'reportWatermark'; group: string; watermark: WireWatermark }) => void,
    mailbox: MailboxProcessor,
    fail: (error: unknown) => void,
  ) {
    this.operator = operator;
    this.#mailbox = mailbox;
    this.#fail = fail;
    operator.assignInitialSplits(splits);
    operator.onSplitRequest = () => toEnumerator({ type: 'requestSplit' });
    operator.onReaderEvent = (event) => toEnumerator({ type: 'sendReaderEvent', event });
    operator.onWatermarkReport = (group, watermark) => toEnumerator({ type: 'reportWatermark', group, watermark: encodeWatermark(watermark) });
    operator.onAlignmentPause = (paused) => (paused ? mailbox.suspend('watermark-alignment') : mailbox.resume('watermark-alignment'));
  }

  /** Watermark alignment: the group's allowed maximum changed. */
  updateMaxAllowedWatermark(maxAllowed: number): void {
    this.operator.updateMaxAllowedWatermark(maxAllowed);
  }

  /** Splits from the split enumerator (run as mail: between two polls, in order with checkpoint triggers). */
  addSplits(splits: unknown[], noMoreSplits: boolean): void {
    this.operator.addSplits(splits, noMoreSplits);
  }

  handleSourceEvent(event: unknown): void {
    this.operator.handleSourceEvent(event);
  }

  /** Where the reader stands: an at-most-once restart goes on from here. */
  positions(): { positions?: unknown[] } {
    try {
      return { positions: this.operator.currentPositions() };
    } catch {
      return {};
    }
  }

  get recordsIn(): number {
    return this.operator.emitted;
  }

  /** A source receives no buffers. */
  readonly bytesIn = 0;

  /** Barriers start at a source (triggerCheckpoint): none arrive, none align. */
  takePriorityBarriers(): void {}
  abortCheckpoint(): void {}
  aligning(): undefined {
    return undefined;
  }

  processInput(): DataInputStatus {
    const status = this.operator.pollNext();
    if (status === 'more') return 'more-available';
    if (status === 'end') {
      this.#mailbox.suspend('input-ended');
      return 'end-of-input';
    }
    this.#mailbox.suspend('source-idle');
    this.operator.reader.isAvailable().then(
      () => this.#mailbox.resume('source-idle'),
      // A reader closed on purpose may settle it with an error: the operator's phase says whether that fails the task.
      (e: unknown) => this.operator.phase.readerFailed(e, (error) => this.#fail(error)),
    );
    return 'nothing-available';
  }
}
