import type { OutputChannel } from '../network/output-channel.ts';
import type { StreamEvent } from '../network/stream-event.ts';
import type { Output } from './operators/stream-operator.ts';
import { BROADCAST, type ChannelSelector } from './partitioner.ts';

/**
 * Writes a subtask's records of one job edge to its channels: records gather in a buffer per
 * channel and leave in batches, events leave after the records before them.
 */
export class RecordWriter implements Output {
  readonly channels: readonly OutputChannel[];
  readonly #select: ChannelSelector;
  readonly #batch: number;
  readonly #pending: unknown[][];
  /** One channel: every partitioner picks it (a broadcast too), so no record needs the selector. */
  readonly #single: boolean;
  recordsOut = 0;

  constructor(channels: readonly OutputChannel[], select: ChannelSelector, batchSize: number) {
    this.channels = channels;
    this.#select = select;
    this.#batch = batchSize;
    this.#pending = channels.map(() => []);
    this.#single = channels.length === 1;
  }

  emit(record: unknown): void {
    this.recordsOut++;
    if (this.#single) {
      this.#add(0, record);
      return;
    }
    const c = this.#select(record);
    if (c === BROADCAST) {
      for (let i = 0; i < this.#pending.length; i++) this.#add(i, record);
    } else {
      this.#add(c, record);
    }
  }

  /** The writer is the output of the operator before it: no closure in between. */
  collect(record: unknown): void {
    this.emit(record);
  }

  #add(c: number, record: unknown): void {
    const buf = this.#pending[c]!;
    buf.push(record);
    if (buf.length >= this.#batch) this.#flushChannel(c);
  }

  #flushChannel(c: number): void {
    const records = this.#pending[c]!;
    if (records.length === 0) return;
    this.#pending[c] = [];
    this.channels[c]!.send({ kind: 'records', records, bytes: 0 });
  }

  flushAll(): void {
    for (let c = 0; c < this.#pending.length; c++) this.#flushChannel(c);
  }

  broadcastEvent(event: StreamEvent): void {
    this.flushAll();
    for (const ch of this.channels) ch.send(event);
  }

  /** Sends an event ahead of everything queued in every channel (unaligned barriers). */
  broadcastPriorityEvent(event: StreamEvent): void {
    for (const ch of this.channels) ch.sendPriority(event);
  }

  /**
   * The records this writer holds that downstream has not received, per channel, oldest first:
   * waiting for credit, then not yet batched. An unaligned checkpoint persists a copy; they are
   * still sent as usual.
   */
  inFlight(): unknown[][] {
    return this.channels.map((ch, c) => [...ch.backlogRecords().flat(), ...this.#pending[c]!]);
  }

  /** Restore of an unaligned checkpoint: the persisted output of one channel goes out first, to that channel. */
  emitToChannel(channel: number, records: readonly unknown[]): void {
    for (const r of records) this.#add(channel, r);
  }

  get writable(): boolean {
    for (const ch of this.channels) if (!ch.writable) return false;
    return true;
  }
}
