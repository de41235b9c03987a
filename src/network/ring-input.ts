import type { Codec } from '../serialization/codec.ts';
import { decodePriority, FrameReader, type FrameSink } from './channel-frames.ts';
import type { DoorbellReader, DoorbellWaiter } from './doorbell-waiter.ts';
import type { InputChannel } from './input-channel.ts';
import { NO_TIMESTAMP } from './record-timestamp.ts';
import type { SegmentRing } from './segment-ring.ts';
import type { RecordBuffer, StreamEvent } from './stream-event.ts';

/**
 * The receiving end of a channel from another thread: segments are decoded into the input
 * channel's queue one at a time, when it has run dry (so the ring, not the heap, holds what is in
 * flight, and a full ring is backpressure), and each is released, a credit back to the writer, as
 * soon as it is decoded. A priority event first brings in every segment published before it, so
 * that the input channel knows what it overtook.
 *
 * The reader always waits (Atomics) while the channel is open, so that a priority event is seen
 * even while the task is not taking input; a publish wakes it only when it has said it has
 * nothing to read (SegmentRing.hungry), otherwise the segment waits for the task's next poll.
 * With its thread's doorbell the reader waits on that, with the thread's other readers, instead
 * of on its own ring (DoorbellWaiter).
 */
class RingReader implements FrameSink, DoorbellReader {
  readonly #ring: SegmentRing;
  readonly #channel: InputChannel;
  readonly #frames: FrameReader;
  /** Segments decoded so far (the count, wrapping as the ring's counters do). */
  #next = 0;
  #records: unknown[] = [];
  #timestamps: number[] = [];
  #timed = false;
  #bytes = 0;
  #closed = false;
  readonly #onError: (e: unknown) => void;

  constructor(ring: SegmentRing, channel: InputChannel, codec: Codec<unknown>, onError: (e: unknown) => void) {
    this.#ring = ring;
    this.#channel = channel;
    this.#frames = new FrameReader(codec);
    this.#onError = onError;
  }

  start(waiter: DoorbellWaiter | undefined): void {
    this.#channel.refill = () => this.#drain();
    this.#channel.measureUsage = () => ((this.#ring.published() - this.#next) | 0) / this.#ring.segments;
    if (waiter !== undefined) waiter.add(this);
    else this.#loop();
  }

  /**
   * What the ring has now (a turn of #loop, or the doorbell rang); false once the channel is
   * closed or failed. A segment that cannot be decoded here fails the receiving task (a refill's
   * failure does so by itself: it happens inside the task's step).
   */
  poll(): boolean {
    if (this.#closed || this.#ring.closed) return false;
    try {
      this.#drain();
      return true;
    } catch (e) {
      this.#closed = true;
      this.#onError(e);
      return false;
    }
  }

  close(): void {
    this.#closed = true;
    this.#channel.refill = undefined;
    this.#ring.close();
  }

  record(value: unknown, timestamp: number): void {
    this.#records.push(value);
    if (timestamp !== NO_TIMESTAMP) {
      // An array per buffer once a record has a timestamp, none before: not one per record.
      if (!this.#timed) {
        this.#timed = true;
        for (let i = this.#timestamps.length; i < this.#records.length - 1; i++) this.#timestamps.push(NO_TIMESTAMP);
      }
      this.#timestamps.push(timestamp);
    } else if (this.#timed) {
      this.#timestamps.push(NO_TIMESTAMP);
    }
  }

  plainRecords(): unknown[] | undefined {
    return this.#timed ? undefined : this.#records;
  }

  event(event: StreamEvent): void {
    this.#deliverRecords();
    this.#channel.deliver(event);
  }

  /**
   * Without a doorbell: waits on the ring for the writer's next publish or priority event, for as
   * long as the channel is open.
   */
  #loop(): void {
    for (;;) {
      const seen = this.#ring.signal();
      if (!this.poll()) return;
      const wait = this.#ring.waitForData(seen);
      if (wait !== undefined) {
        void wait.then(() => this.#loop());
        return;
      }
    }
  }

  /** Priority events first; then one more segment if the channel has nothing queued. */
  #drain(): void {
    if (this.#closed) return;
    const ring = this.#ring;
    for (let p = ring.takePriority(); p !== undefined; p = ring.takePriority()) {
      while (((p.publishedBefore - this.#next) | 0) > 0) this.#decodeNext();
      const priority = decodePriority(p.bytes);
      if (priority.kind === 'convert') this.#channel.convertBarrier(priority.checkpointId);
      else this.#channel.deliverPriority(priority.event);
    }
    while (this.#channel.queuedSize === 0) {
      if (ring.published() !== this.#next) this.#decodeNext();
      else if (ring.hungry(this.#next)) return;
    }
  }

  #decodeNext(): void {
    const segment = this.#ring.segment(this.#next);
    this.#bytes = segment.byteLength;
    this.#frames.read(segment, this);
    this.#next = (this.#next + 1) | 0;
    this.#ring.release();
    this.#deliverRecords();
  }

  #deliverRecords(): void {
    if (this.#records.length === 0) return;
    const buffer: RecordBuffer = {
      kind: 'records',
      records: this.#records,
      bytes: this.#bytes,
      ...(this.#timed ? { timestamps: this.#timestamps } : {}),
    };
    this.#records = [];
    if (this.#timed) {
      this.#timestamps = [];
      this.#timed = false;
    }
    // A segment's bytes count once, with its first buffer.
    this.#bytes = 0;
    this.#channel.deliver(buffer);
  }
}

/**
 * Connects the reading half of a ring to an input channel; returns how to close it. `waiter`: the
 * thread's doorbell waiter, when the ring's writer rings that doorbell (the ring was made with it).
 */
export function connectRingInput(ring: SegmentRing, channel: InputChannel, codec: Codec<unknown>, onError: (e: unknown) => void, waiter?: DoorbellWaiter): () => void {
  const reader = new RingReader(ring, channel, codec, onError);
  reader.start(waiter);
  return () => reader.close();
}
