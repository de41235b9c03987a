import type { BarrierSettlement, OutputChannel } from '../network/output-channel.ts';
import { RecordTimestamp } from '../network/record-timestamp.ts';
import { unwrapRecord } from '../network/timestamped-record.ts';
import type { StreamEvent } from '../network/stream-event.ts';
import type { Output } from './operators/stream-operator.ts';
import { BROADCAST, type ChannelSelector } from './partitioner.ts';

/**
 * Writes a subtask's records of one job edge to its channels (each channel batches or
 * serializes them into its buffers); events leave after the records before them.
 */
export class RecordWriter implements Output {
  readonly channels: readonly OutputChannel[];
  readonly #select: ChannelSelector;
  readonly #flushEachRecord: boolean;
  /** One channel: every partitioner picks it (a broadcast too), so no record needs the selector. */
  readonly #single: OutputChannel | undefined;
  /** Where the record being emitted has its timestamp: the task's (OperatorChain shares it). */
  #time = new RecordTimestamp();
  recordsOut = 0;

  /** `flushEachRecord`: a buffer timeout of 0, every record leaves at once. */
  constructor(channels: readonly OutputChannel[], select: ChannelSelector, flushEachRecord = false) {
    this.channels = channels;
    this.#select = select;
    this.#flushEachRecord = flushEachRecord;
    this.#single = channels.length === 1 ? channels[0] : undefined;
  }

  /** The task's current record timestamp, which every record written here carries. */
  set timestamps(time: RecordTimestamp) {
    this.#time = time;
  }

  emit(record: unknown): void {
    this.recordsOut++;
    if (this.#single !== undefined) {
      this.#write(this.#single, record);
      return;
    }
    const c = this.#select(record);
    if (c === BROADCAST) {
      for (const ch of this.channels) this.#write(ch, record);
    } else {
      this.#write(this.channels[c]!, record);
    }
  }

  /** The writer is the output of the operator before it: no closure in between. */
  collect(record: unknown): void {
    this.emit(record);
  }

  #write(ch: OutputChannel, record: unknown): void {
    ch.emit(record, this.#time.current);
    if (this.#flushEachRecord) ch.flush();
  }

  flushAll(): void {
    for (const ch of this.channels) ch.flush();
  }

  /** Returns the settlements of an aligned barrier that had to wait in some channel (see OutputChannel.sendEvent). */
  broadcastEvent(event: StreamEvent): Array<{ channel: number; settled: BarrierSettlement }> {
    const waiting: Array<{ channel: number; settled: BarrierSettlement }> = [];
    this.channels.forEach((ch, channel) => {
      const settled = ch.sendEvent(event);
      if (settled) waiting.push({ channel, settled });
    });
    return waiting;
  }

  /** Sends an event ahead of everything queued in every channel (unaligned barriers). */
  broadcastPriorityEvent(event: StreamEvent): void {
    for (const ch of this.channels) ch.sendPriority(event);
  }

  /** The records each channel holds that downstream has not received, oldest first (see OutputChannel.inFlight). */
  inFlight(): unknown[][] {
    return this.channels.map((ch) => ch.inFlight());
  }

  /** Restore of an unaligned checkpoint: the persisted output of one channel goes out first, to that channel, with the records' timestamps. */
  emitToChannel(channel: number, records: readonly unknown[]): void {
    const ch = this.channels[channel]!;
    for (const r of records) {
      const { value, timestamp } = unwrapRecord(r);
      ch.emit(value, timestamp);
      if (this.#flushEachRecord) ch.flush();
    }
  }

  /** Restore of an unaligned checkpoint at another parallelism: a persisted output record goes where the partitioner says. */
  emitRestored(record: unknown): void {
    const { value, timestamp } = unwrapRecord(record);
    const time = this.#time;
    const previous = time.current;
    time.current = timestamp;
    try {
      this.emit(value);
    } finally {
      time.current = previous;
    }
  }

  get writable(): boolean {
    for (const ch of this.channels) if (!ch.writable) return false;
    return true;
  }

  /** Flink's outPoolUsage: the share of the edge's buffers in use, over all its channels. */
  get usage(): number {
    let u = 0;
    for (const ch of this.channels) u += ch.usage;
    return this.channels.length === 0 ? 0 : u / this.channels.length;
  }
}
