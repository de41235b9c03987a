import type { OutputChannel } from '../network/output-channel.ts';
import type { StreamEvent } from '../network/stream-event.ts';
import { BROADCAST, type ChannelSelector } from './partitioner.ts';

/**
 * Writes a subtask's records of one job edge to its channels: records gather in a buffer per
 * channel and leave in batches, events leave after the records before them.
 */
export class RecordWriter {
  readonly channels: readonly OutputChannel[];
  readonly #select: ChannelSelector;
  readonly #batch: number;
  readonly #pending: unknown[][];
  recordsOut = 0;

  constructor(channels: readonly OutputChannel[], select: ChannelSelector, batchSize: number) {
    this.channels = channels;
    this.#select = select;
    this.#batch = batchSize;
    this.#pending = channels.map(() => []);
  }

  emit(record: unknown): void {
    this.recordsOut++;
    const c = this.#select(record);
    if (c === BROADCAST) {
      for (let i = 0; i < this.#pending.length; i++) this.#add(i, record);
    } else {
      this.#add(c, record);
    }
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

  /** Records not yet handed to a channel, per channel (unaligned snapshots persist them). */
  takePending(): unknown[][] {
    const taken = this.#pending.map((p) => p);
    for (let c = 0; c < this.#pending.length; c++) this.#pending[c] = [];
    return taken;
  }

  get writable(): boolean {
    for (const ch of this.channels) if (!ch.writable) return false;
    return true;
  }
}
