import type { Clock, Timer } from '../clock/clock.ts';
import type { Barrier, ChannelItem, RecordBuffer, StreamEvent } from './stream-event.ts';
import { persistedRecords } from './timestamped-record.ts';

/** The records an aligned barrier had ahead of it when it was converted to a priority one; undefined when it left in order. */
export type BarrierSettlement = Promise<unknown[] | undefined>;

interface QueuedBarrier {
  readonly barrier: Barrier;
  readonly timer: Timer;
  readonly resolve: (overtaken: unknown[] | undefined) => void;
}

/**
 * The sending end of a channel with credit-based flow control. What the receiver has no room for
 * waits in a backlog, in order (record buffers and events); while anything waits the channel is
 * not writable and the writing task stops taking input: that is backpressure, and it travels
 * upstream channel by channel to the sources.
 *
 * An aligned barrier stuck in the backlog past its checkpoint's aligned timeout is converted here,
 * at the sender (Flink's timeoutable aligned barriers, FLINK-27251): it leaves as a priority
 * (unaligned) barrier, and the records it had ahead of it become this channel's part of the
 * checkpoint, so the checkpoint completes unaligned even when the receiver would never see the
 * barrier in time.
 */
export abstract class OutputChannel {
  protected readonly backlog: ChannelItem[] = [];
  readonly #clock: Clock;
  readonly #maxBacklog: number;
  readonly #queuedBarriers: QueuedBarrier[] = [];
  #onWritable: (() => void) | undefined;

  /** `maxBacklog`: items that may wait before the channel stops being writable. */
  constructor(clock: Clock, maxBacklog = 1) {
    this.#clock = clock;
    this.#maxBacklog = maxBacklog;
  }

  /** Sends one record (`timestamp` NO_TIMESTAMP where it has none). */
  abstract emit(record: unknown, timestamp?: number): void;

  /** The partly filled buffer leaves now (buffer timeout, idle task, before a barrier). */
  abstract flush(): void;

  /** Sends an event ahead of everything queued, and of what the receiver has not taken yet. */
  abstract sendPriority(event: StreamEvent): void;

  abstract close(): void;

  /** Sends the event once the records before it have left. Tries now; else it waits in the backlog. */
  protected abstract transmitEvent(event: StreamEvent): boolean;

  /** Sends the head of the backlog, a record buffer, as far as room allows; false when it had to stop. */
  protected abstract transmitQueued(buffer: RecordBuffer): boolean;

  /** Records the channel holds that are neither sent nor in the backlog (a batch being filled), timestamped as persistedRecords makes them. */
  protected abstract unsentBatch(): readonly unknown[];

  get writable(): boolean {
    return this.backlog.length < this.#maxBacklog;
  }

  set onWritable(callback: (() => void) | undefined) {
    this.#onWritable = callback;
  }

  /** Bytes of the record buffers sent, where the channel serializes them (0 where buffers are handed over). */
  get bytesOut(): number {
    return 0;
  }

  /** The share of the channel's buffers in use, 0..1 (Flink's outPoolUsage). */
  abstract get usage(): number;

  /**
   * Sends an event after the records before it. Returns, for an aligned barrier that may time out
   * and had to wait, when it left and what it overtook if it was converted.
   */
  sendEvent(event: StreamEvent): BarrierSettlement | undefined {
    this.flush();
    const timeoutable = event.kind === 'barrier' && !event.options.unaligned && event.options.alignedTimeout > 0;
    if (this.backlog.length === 0 && this.transmitEvent(event)) {
      if (timeoutable) this.#schedule(event, () => {});
      return undefined;
    }
    this.backlog.push(event);
    if (!timeoutable) return undefined;
    return new Promise((resolve) => this.#schedule(event, resolve));
  }

  /**
   * At the barrier's deadline: converted here if it still waits in the backlog, else the receiver
   * is told to convert it if it has not taken it yet (it may wait in the receiver's queue).
   */
  #schedule(barrier: Barrier, resolve: (overtaken: unknown[] | undefined) => void): void {
    const wait = Math.max(0, barrier.timestamp + barrier.options.alignedTimeout - this.#clock.now());
    const queued: QueuedBarrier = {
      barrier,
      resolve,
      timer: this.#clock.schedule(() => {
        const i = this.#queuedBarriers.indexOf(queued);
        if (i >= 0) this.#queuedBarriers.splice(i, 1);
        if (this.backlog.includes(barrier)) this.#convert(queued);
        else this.convertDelivered(barrier);
        // A conversion matters only while the job runs: a cancelled job's channels must not keep its process alive.
      }, wait, { keepAlive: false }),
    };
    this.#queuedBarriers.push(queued);
  }

  /** The barrier was sent: the receiver converts it if it is still queued there (InputChannel.convertBarrier). */
  protected abstract convertDelivered(barrier: Barrier): void;

  /**
   * The records this channel holds that downstream has not received, oldest first: the backlog,
   * then the batch being filled, each with its timestamp (TimestampedRecord) where it has one.
   * An unaligned checkpoint persists a copy; they are still sent.
   */
  inFlight(): unknown[] {
    const records: unknown[] = [];
    for (const item of this.backlog) if (item.kind === 'records') this.#appendUnsent(records, item);
    for (const r of this.unsentBatch()) records.push(r);
    return records;
  }

  /** Room for more came back: what waits goes out in order; a writer that was blocked is told. */
  protected drainBacklog(): void {
    const backlog = this.backlog;
    if (backlog.length === 0) return;
    const wasWritable = this.writable;
    while (backlog.length > 0) {
      const head = backlog[0]!;
      if (head.kind === 'records' ? !this.transmitQueued(head) : !this.transmitEvent(head)) break;
      backlog.shift();
      if (head.kind === 'barrier') this.#settle(head);
    }
    if (!wasWritable && this.writable) this.#onWritable?.();
  }

  /** A record buffer in the backlog may be partly sent already (`sent` records of it). */
  protected sentOf(_buffer: RecordBuffer): number {
    return 0;
  }

  #appendUnsent(into: unknown[], buffer: RecordBuffer): void {
    for (const r of persistedRecords(buffer, this.sentOf(buffer))) into.push(r);
  }

  /** Converted in the backlog: it leaves now as a priority barrier; what it overtook is the checkpoint's. */
  #convert(q: QueuedBarrier): void {
    const index = this.backlog.indexOf(q.barrier);
    const overtaken: unknown[] = [];
    for (let i = 0; i < index; i++) {
      const item = this.backlog[i]!;
      if (item.kind === 'records') this.#appendUnsent(overtaken, item);
    }
    const wasWritable = this.writable;
    this.backlog.splice(index, 1);
    this.sendPriority({ ...q.barrier, options: { ...q.barrier.options, unaligned: true } });
    q.resolve(overtaken);
    if (!wasWritable && this.writable) this.#onWritable?.();
  }

  /** The barrier left the backlog in order: nothing overtaken here (its timer stays, for the receiver's queue). */
  #settle(barrier: Barrier): void {
    this.#queuedBarriers.find((q) => q.barrier === barrier)?.resolve(undefined);
  }

  /** Ends pending conversions (the task is going away). */
  protected cancelConversions(): void {
    for (const q of this.#queuedBarriers.splice(0)) q.timer.cancel();
  }
}
