import { channelStateKey, type ChannelStateKey } from '../checkpoint/channel-state-key.ts';
import type { Barrier, ChannelItem } from './stream-event.ts';
import { persistedRecords } from './timestamped-record.ts';

/**
 * The receiving end of a channel. It holds at most the granted credits' worth of record buffers
 * (plus events) and grants a credit back for each buffer taken out.
 */
export class InputChannel {
  readonly index: number;
  /** Which producer this channel comes from, for error messages and checkpoint reasons. */
  readonly description: string;
  /** Its edge and producer: names the channel's in-flight data in an unaligned checkpoint. */
  readonly key: ChannelStateKey;
  readonly #queue: ChannelItem[] = [];
  #head = 0;
  #returnCredit: (n: number) => void = () => {};
  /** Record buffers queued, against the credits granted: Flink's inPoolUsage. */
  #buffered = 0;
  /** Buffers the sender may have in flight to this channel (its credits); set by the transport. */
  capacity = 0;
  /** Records taken from this channel so far (its consumer's throughput, for debloating). */
  recordsTaken = 0;
  /** What buffer debloating lets a channel between TaskManagers hold ahead of a barrier at most, bytes; undefined without debloating. */
  debloatedBufferSize: number | undefined;
  /** What buffer debloating lets a channel within one TaskManager hold ahead of a barrier at most, records; undefined without debloating. */
  debloatedBufferRecords: number | undefined;
  /** A channel within one TaskManager: sets its sender's debloated budget (buffers in flight, records per buffer). */
  debloat: ((buffers: number, batchSize: number) => void) | undefined;
  /** A transport that holds buffers of its own (a shared-memory ring) says how full it is. */
  measureUsage: (() => number) | undefined;
  /** A transport that delivers on demand (a shared-memory ring) brings in more when the queue has run dry. */
  refill: (() => void) | undefined;
  #onData: (() => void) | undefined;
  /** Unaligned checkpoints: records that arrive before this checkpoint's barrier are copied here. */
  #recording: { checkpointId: number; buffers: unknown[][] } | undefined;
  /**
   * The records the latest priority barrier overtook: those queued when it arrived. Records
   * delivered after it are behind it in the queue too, but they came after the barrier.
   */
  #overtaken: { checkpointId: number; buffers: unknown[][] } | undefined;

  /** `key` may come as text (it is checked); a channel of no edge (in tests) is edge 0's. */
  constructor(index: number, description: string, key: ChannelStateKey = channelStateKey(0, index)) {
    this.index = index;
    this.description = description;
    this.key = key;
  }

  set creditReturn(fn: (n: number) => void) {
    this.#returnCredit = fn;
  }

  set onData(callback: (() => void) | undefined) {
    this.#onData = callback;
  }

  /** Items queued, after a transport that delivers on demand has been asked for more. */
  get size(): number {
    if (this.#head >= this.#queue.length) this.refill?.();
    return this.#queue.length - this.#head;
  }

  /** Items queued now, without asking the transport for more. */
  get queuedSize(): number {
    return this.#queue.length - this.#head;
  }

  /** The share of this channel's buffers in use, 0..1 (Flink's inPoolUsage). */
  get usage(): number {
    if (this.measureUsage) return this.measureUsage();
    return this.capacity > 0 ? Math.min(1, this.#buffered / this.capacity) : 0;
  }

  deliver(item: ChannelItem): void {
    if (item.kind === 'records') this.#buffered++;
    const rec = this.#recording;
    if (rec !== undefined) {
      if (item.kind === 'records') rec.buffers.push(persistedRecords(item));
      else if (item.kind === 'barrier' && item.checkpointId >= rec.checkpointId) this.#recording = undefined;
    }
    this.#queue.push(item);
    this.#onData?.();
  }

  /** Puts a priority event in front of everything queued. */
  deliverPriority(item: ChannelItem): void {
    const rec = this.#recording;
    if (rec !== undefined && item.kind === 'barrier' && item.checkpointId >= rec.checkpointId) this.#recording = undefined;
    if (item.kind === 'barrier') {
      const buffers: unknown[][] = [];
      for (let i = this.#head; i < this.#queue.length; i++) {
        const queued = this.#queue[i]!;
        if (queued.kind === 'records') buffers.push(persistedRecords(queued));
      }
      this.#overtaken = { checkpointId: item.checkpointId, buffers };
    }
    this.#queue.splice(this.#head, 0, item);
    this.#onData?.();
  }

  /**
   * The sender's aligned barrier timed out while still queued here, not yet taken: it moves to
   * the front as an unaligned barrier and the records it had ahead of it are what it overtook
   * (the receiving half of Flink's timeoutable aligned barriers). Nothing happens when it has been
   * taken already.
   */
  convertBarrier(checkpointId: number): void {
    const queue = this.#queue;
    let index = -1;
    for (let i = this.#head; i < queue.length; i++) {
      const item = queue[i]!;
      if (item.kind === 'barrier' && item.checkpointId === checkpointId && !item.options.unaligned) {
        index = i;
        break;
      }
    }
    if (index < 0) return;
    const barrier = queue[index] as Barrier;
    const buffers: unknown[][] = [];
    for (let i = this.#head; i < index; i++) {
      const queued = queue[i]!;
      if (queued.kind === 'records') buffers.push(persistedRecords(queued));
    }
    queue.splice(index, 1);
    queue.splice(this.#head, 0, { ...barrier, options: { ...barrier.options, unaligned: true } });
    const rec = this.#recording;
    if (rec !== undefined && checkpointId >= rec.checkpointId) this.#recording = undefined;
    this.#overtaken = { checkpointId, buffers };
    this.#onData?.();
  }

  /**
   * Starts capturing the in-flight data of an unaligned checkpoint: the records queued now that
   * came before the checkpoint's barrier, and every record delivered until that barrier arrives.
   * A priority (unaligned) barrier that has arrived (queued, or just taken) overtook the records
   * queued when it arrived, and only those; an in-order one only those behind it are after it.
   * Returns the list that fills up.
   */
  startRecording(checkpointId: number): unknown[][] {
    const overtaken = this.#overtaken;
    if (overtaken !== undefined && overtaken.checkpointId >= checkpointId) {
      this.#overtaken = undefined;
      this.#recording = undefined;
      return overtaken.buffers;
    }
    const buffers: unknown[][] = [];
    let barrierQueued = false;
    for (let i = this.#head; i < this.#queue.length; i++) {
      const item = this.#queue[i]!;
      if (item.kind === 'barrier' && item.checkpointId >= checkpointId) {
        barrierQueued = true;
        if (!item.options.unaligned) break;
      } else if (item.kind === 'records') {
        buffers.push(persistedRecords(item));
      }
    }
    this.#recording = barrierQueued ? undefined : { checkpointId, buffers };
    return buffers;
  }

  stopRecording(): void {
    this.#recording = undefined;
  }

  get isRecording(): boolean {
    return this.#recording !== undefined;
  }

  peek(): ChannelItem | undefined {
    if (this.#head >= this.#queue.length) this.refill?.();
    return this.#head < this.#queue.length ? this.#queue[this.#head] : undefined;
  }

  poll(): ChannelItem | undefined {
    if (this.#head >= this.#queue.length) {
      this.refill?.();
      if (this.#head >= this.#queue.length) return undefined;
    }
    const item = this.#queue[this.#head]!;
    this.#queue[this.#head++] = undefined as unknown as ChannelItem;
    if (this.#head > 64 && this.#head * 2 > this.#queue.length) {
      this.#queue.splice(0, this.#head);
      this.#head = 0;
    }
    if (item.kind === 'records') {
      this.#buffered--;
      this.recordsTaken += item.records.length;
      this.#returnCredit(1);
    }
    return item;
  }

  /** The queued items, oldest first, without taking them. */
  queued(): ChannelItem[] {
    return this.#queue.slice(this.#head);
  }
}
