import type { Clock } from '../clock/clock.ts';
import { InputChannel } from './input-channel.ts';
import { OutputChannel } from './output-channel.ts';
import { NO_TIMESTAMP } from './record-timestamp.ts';
import { persistedRecords } from './timestamped-record.ts';
import type { Barrier, RecordBuffer, StreamEvent } from './stream-event.ts';

export interface LocalChannelOptions {
  /** Record buffers the receiver may hold: its credits. */
  readonly credits: number;
  /** Records per buffer. */
  readonly batchSize: number;
  readonly clock: Clock;
  /** Buffers that may wait for credit before the channel stops being writable (default LOCAL_BACKLOG). */
  readonly maxBacklog?: number;
  /**
   * A declared type's check: records stay objects here, but one that does not fit its type fails
   * as it would between threads, wherever the subtasks happen to run.
   */
  readonly check?: (record: unknown) => void;
}

/** Buffers a channel within one TaskManager may keep waiting for credit by default. */
export const LOCAL_BACKLOG = 2;

/**
 * Both ends in one TaskManager: records gather in arrays that are handed over by reference,
 * nothing is serialized. A buffer leaves when full, at an event, or when the task flushes.
 */
class LocalOutputChannel extends OutputChannel {
  readonly #input: InputChannel;
  #batchSize: number;
  readonly #capacity: number;
  #credits: number;
  /** Buffers it may have in flight: the credits, or fewer when debloated. */
  #limit: number;
  #batch: unknown[] = [];
  /** The batch's timestamps, from its first timestamped record on (earlier ones are NO_TIMESTAMP). */
  #timestamps: number[] | undefined;
  readonly #check: ((record: unknown) => void) | undefined;

  constructor(input: InputChannel, o: LocalChannelOptions) {
    super(o.clock, o.maxBacklog ?? LOCAL_BACKLOG);
    this.#check = o.check;
    this.#input = input;
    this.#credits = o.credits;
    this.#capacity = o.credits;
    this.#limit = o.credits;
    this.#batchSize = o.batchSize;
  }

  emit(record: unknown, timestamp = NO_TIMESTAMP): void {
    this.#check?.(record);
    const batch = this.#batch;
    if (timestamp !== NO_TIMESTAMP || this.#timestamps !== undefined) this.#stamp(timestamp);
    batch.push(record);
    if (batch.length >= this.#batchSize) this.flush();
  }

  #stamp(timestamp: number): void {
    let ts = this.#timestamps;
    if (ts === undefined) this.#timestamps = ts = new Array<number>(this.#batch.length).fill(NO_TIMESTAMP);
    ts.push(timestamp);
  }

  flush(): void {
    const records = this.#batch;
    if (records.length === 0) return;
    this.#batch = [];
    const timestamps = this.#timestamps;
    this.#timestamps = undefined;
    const buffer: RecordBuffer = timestamps === undefined ? { kind: 'records', records, bytes: 0 } : { kind: 'records', records, bytes: 0, timestamps };
    if (this.backlog.length > 0 || !this.transmitQueued(buffer)) this.backlog.push(buffer);
  }

  /** Buffer debloating: at most `buffers` in flight (within the credits), of `batchSize` records. */
  setBudget(buffers: number, batchSize: number): void {
    this.#limit = Math.max(1, Math.min(this.#capacity, buffers));
    this.#batchSize = Math.max(1, batchSize);
    if (this.#batch.length >= this.#batchSize) this.flush();
    this.drainBacklog();
  }

  addCredit(n: number): void {
    this.#credits += n;
    this.drainBacklog();
  }

  sendPriority(event: StreamEvent): void {
    this.#input.deliverPriority(event);
  }

  protected convertDelivered(barrier: Barrier): void {
    this.#input.convertBarrier(barrier.checkpointId);
  }

  protected transmitEvent(event: StreamEvent): boolean {
    this.#input.deliver(event);
    return true;
  }

  protected transmitQueued(buffer: RecordBuffer): boolean {
    if (this.#credits === 0 || this.#capacity - this.#credits >= this.#limit) return false;
    this.#credits--;
    this.#input.deliver(buffer);
    return true;
  }

  protected unsentBatch(): readonly unknown[] {
    const ts = this.#timestamps;
    return ts === undefined ? this.#batch : persistedRecords({ kind: 'records', records: this.#batch, bytes: 0, timestamps: ts });
  }

  get usage(): number {
    return this.#capacity === 0 ? 0 : (this.#capacity - this.#credits) / this.#capacity;
  }

  close(): void {
    this.cancelConversions();
  }
}

export function connectLocal(input: InputChannel, options: LocalChannelOptions): OutputChannel {
  const output = new LocalOutputChannel(input, options);
  input.creditReturn = (n) => output.addCredit(n);
  input.capacity = options.credits;
  input.debloat = (buffers, batchSize) => output.setBudget(buffers, batchSize);
  return output;
}
