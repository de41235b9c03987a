import type { Doorbell } from './doorbell.ts';
import { waitUnlessChanged } from './wait-unless-changed.ts';

/**
 * The memory of one channel between two threads: a single-producer / single-consumer ring of
 * fixed-size segments in a SharedArrayBuffer, plus a small ring of priority slots for events that
 * overtake queued data (unaligned barriers). Written by hand because the rings on npm carry bytes
 * of any length (ringbuf.js, thread-stream), while a channel needs whole segments as the unit of
 * credit, a publish that says how much of a segment is used, and priority events that know which
 * segments they overtook.
 *
 * Counters are monotonic int32 that wrap; differences are taken with `| 0`. Every access is an
 * Atomics operation, which makes the wake-up protocol safe (wait-unless-changed.ts).
 *
 * A notify to a thread parked in Atomics.waitAsync costs microseconds (measured ~15 µs on this
 * 2-core machine under load), so neither side is woken for nothing: a publish wakes the reader
 * only when it has said it has nothing to read (a priority event wakes it whenever it waits), and
 * a release wakes a waiting writer only once half the ring is free again or the reader has read
 * everything (so a writer is never left waiting while the reader has stopped with credit free).
 *
 * A ring may have its reader's thread's doorbell (see doorbell.ts): then the reader does not wait
 * on the ring, and what would wake it rings the doorbell instead, which all the thread's rings
 * share. The writer's end must have the doorbell its reader waits on; the reader's end may have it
 * too (closing the ring there then rings it).
 */

/** Int32 indices of the control block; each counter on a cache line of its own. */
const PUBLISHED = 0; // segments the writer has published
const RELEASED = 16; // segments the reader has released
const SIGNAL = 32; // bumped by the writer on every publish and priority event: what the reader waits on
const READER_WAITING = 33;
const READER_HUNGRY = 34; // the reader has nothing to read: a publish must wake it
const CREDIT_SIGNAL = 48; // bumped by the reader on every release: what the writer waits on
const WRITER_WAITING = 49;
const PRIORITY_WRITTEN = 64;
const PRIORITY_READ = 80;
const CLOSED = 96;
// Buffer debloating (FLIP-183), set by the reader: segments the writer may have in flight (0: the
// whole ring), and the payload bytes at which it publishes a segment (0: the whole segment).
const BUDGET = 112;
const FILL_LIMIT = 113;
const CONTROL_BYTES = 512;

/** Where the counters are, for tests that start them near the int32 wrap. */
export const RING_COUNTERS = { PUBLISHED, RELEASED, PRIORITY_WRITTEN, PRIORITY_READ, SIGNAL, CREDIT_SIGNAL } as const;

/** Priority slots: an unaligned barrier is a few hundred bytes; several may be outstanding. */
export const PRIORITY_SLOTS = 8;
export const PRIORITY_SLOT_BYTES = 1024;
const PRIORITY_HEADER = 8; // u32 length, u32 segments published before the event

/** Each segment starts with the number of bytes used after this header. */
export const SEGMENT_HEADER = 4;

export interface RingShape {
  readonly segments: number;
  readonly segmentSize: number;
}

/** A priority event as the reader finds it: its bytes, and how many segments had been published before it. */
export interface PriorityEntry {
  readonly bytes: Uint8Array;
  readonly publishedBefore: number;
}

/**
 * One channel's shared memory, seen from either end. The writer acquires the segment after the
 * last published one while fewer than `segments` are unreleased, writes into it and publishes it;
 * the reader reads published segments in order and releases each when it no longer needs its
 * bytes. A released segment is a credit back to the writer.
 */
export class SegmentRing {
  readonly buffer: SharedArrayBuffer;
  readonly #doorbell: Doorbell | undefined;
  readonly segments: number;
  readonly segmentSize: number;
  readonly #control: Int32Array;
  readonly #bytes: Uint8Array;
  readonly #views: DataView;
  readonly #dataStart: number;
  readonly #mask: number;
  /** Free segments at which a waiting writer is woken. */
  readonly #wakeWriterAt: number;
  /** Payload bytes of the segments this end has read (the reader's throughput, for debloating). */
  #bytesRead = 0;

  private constructor(buffer: SharedArrayBuffer, shape: RingShape, doorbell: Doorbell | undefined) {
    this.buffer = buffer;
    this.#doorbell = doorbell;
    this.segments = shape.segments;
    this.segmentSize = shape.segmentSize;
    this.#control = new Int32Array(buffer, 0, CONTROL_BYTES / 4);
    this.#bytes = new Uint8Array(buffer);
    this.#views = new DataView(buffer);
    this.#dataStart = CONTROL_BYTES + PRIORITY_SLOTS * PRIORITY_SLOT_BYTES;
    this.#mask = shape.segments - 1;
    this.#wakeWriterAt = Math.max(1, shape.segments >> 1);
  }

  /** `doorbell`: the reading thread's, when its reader waits on that instead of on the ring. */
  static create(shape: RingShape, doorbell?: Doorbell): SegmentRing {
    // A power of two, so that `counter & mask` stays continuous when the int32 counters wrap.
    if (!Number.isInteger(shape.segments) || shape.segments < 1 || (shape.segments & (shape.segments - 1)) !== 0 || shape.segments > 1024) {
      throw new RangeError(`a ring's segment count is a power of two from 1 to 1024, not ${shape.segments}`);
    }
    if (!Number.isInteger(shape.segmentSize) || shape.segmentSize < 256 || shape.segmentSize % 8 !== 0) {
      throw new RangeError(`a segment is a multiple of 8 bytes, at least 256, not ${shape.segmentSize}`);
    }
    const size = CONTROL_BYTES + PRIORITY_SLOTS * PRIORITY_SLOT_BYTES + shape.segments * shape.segmentSize;
    return new SegmentRing(new SharedArrayBuffer(size), shape, doorbell);
  }

  /** The other thread's view of a ring made by `create` (the buffer was posted to it). */
  static attach(buffer: SharedArrayBuffer, shape: RingShape, doorbell?: Doorbell): SegmentRing {
    return new SegmentRing(buffer, shape, doorbell);
  }

  get shape(): RingShape {
    return { segments: this.segments, segmentSize: this.segmentSize };
  }

  // ---- writer ----

  /** Segments not published or released: room in the ring (what a relay of another process's segments may fill). */
  freeSegments(): number {
    const c = this.#control;
    return this.segments - ((Atomics.load(c, PUBLISHED) - Atomics.load(c, RELEASED)) | 0);
  }

  /** Segments a writer may still fill: its credits, within the reader's debloated budget. */
  credits(): number {
    const c = this.#control;
    return this.#limit() - ((Atomics.load(c, PUBLISHED) - Atomics.load(c, RELEASED)) | 0);
  }

  /** The next segment's payload as a writer fills it: cut to the reader's fill limit (publish when full). */
  nextWritableSegment(): Uint8Array {
    const segment = this.nextSegment();
    const limit = Atomics.load(this.#control, FILL_LIMIT);
    return limit > 0 && limit < segment.byteLength ? segment.subarray(0, limit) : segment;
  }

  /** The payload of the next segment to publish (after its length header); only valid while freeSegments() > 0. */
  nextSegment(): Uint8Array {
    const start = this.#segmentStart(Atomics.load(this.#control, PUBLISHED) & this.#mask);
    return this.#bytes.subarray(start + SEGMENT_HEADER, start + this.segmentSize);
  }

  /** Publishes the segment returned by nextSegment() with `used` payload bytes, and wakes a waiting reader. */
  publish(used: number): void {
    const c = this.#control;
    const published = Atomics.load(c, PUBLISHED);
    this.#views.setUint32(this.#segmentStart(published & this.#mask), used, true);
    Atomics.store(c, PUBLISHED, (published + 1) | 0);
    Atomics.add(c, SIGNAL, 1);
    if (Atomics.load(c, READER_HUNGRY) !== 0) this.#wakeReader();
  }

  /** Whether a priority slot is free (the reader has taken all but PRIORITY_SLOTS - 1 of them). */
  priorityFree(): boolean {
    const c = this.#control;
    return ((Atomics.load(c, PRIORITY_WRITTEN) - Atomics.load(c, PRIORITY_READ)) | 0) < PRIORITY_SLOTS;
  }

  /** Writes a priority event, marked with the segments published before it; the caller checked priorityFree(). */
  publishPriority(event: Uint8Array): void {
    if (event.byteLength > PRIORITY_SLOT_BYTES - PRIORITY_HEADER) throw new RangeError(`a priority event of ${event.byteLength} bytes does not fit a slot of ${PRIORITY_SLOT_BYTES - PRIORITY_HEADER}`);
    const c = this.#control;
    const written = Atomics.load(c, PRIORITY_WRITTEN);
    const start = CONTROL_BYTES + (written & (PRIORITY_SLOTS - 1)) * PRIORITY_SLOT_BYTES;
    this.#views.setUint32(start, event.byteLength, true);
    this.#views.setInt32(start + 4, Atomics.load(c, PUBLISHED), true);
    this.#bytes.set(event, start + PRIORITY_HEADER);
    Atomics.store(c, PRIORITY_WRITTEN, (written + 1) | 0);
    Atomics.add(c, SIGNAL, 1);
    // A reader on a doorbell is always waiting when it is not running: ringing is what wakes it.
    if (this.#doorbell !== undefined || Atomics.load(c, READER_WAITING) !== 0) this.#wakeReader();
  }

  #wakeReader(): void {
    const c = this.#control;
    Atomics.store(c, READER_HUNGRY, 0);
    Atomics.store(c, READER_WAITING, 0);
    if (this.#doorbell !== undefined) this.#doorbell.ring();
    else Atomics.notify(c, SIGNAL);
  }

  /**
   * Resolves once the reader released a segment after `seen` (a creditSignal() value), or the ring
   * closed. Undefined when that happened already: the caller looks again at once.
   */
  waitForCredit(seen: number): Promise<unknown> | undefined {
    return waitUnlessChanged(this.#control, CREDIT_SIGNAL, WRITER_WAITING, seen, CLOSED);
  }

  creditSignal(): number {
    return Atomics.load(this.#control, CREDIT_SIGNAL);
  }

  // ---- reader ----

  /** Payload bytes read at this end so far. */
  get bytesRead(): number {
    return this.#bytesRead;
  }

  /** The number of published segments (a counter to compare with the reader's own). */
  published(): number {
    return Atomics.load(this.#control, PUBLISHED);
  }

  /** The payload of the `n`-th segment ever published (n counts from 0, wrapping with the counters); read once per segment. */
  segment(n: number): Uint8Array {
    const start = this.#segmentStart(n & this.#mask);
    const used = this.#views.getUint32(start, true);
    this.#bytesRead += used;
    return this.#bytes.subarray(start + SEGMENT_HEADER, start + SEGMENT_HEADER + used);
  }

  /** Releases the oldest unreleased segment: a credit for the writer. */
  release(): void {
    const c = this.#control;
    const released = (Atomics.add(c, RELEASED, 1) + 1) | 0;
    Atomics.add(c, CREDIT_SIGNAL, 1);
    if (Atomics.load(c, WRITER_WAITING) === 0) return;
    const unread = (Atomics.load(c, PUBLISHED) - released) | 0;
    const limit = this.#limit();
    if (limit - unread >= (limit === this.segments ? this.#wakeWriterAt : Math.max(1, limit >> 1)) || unread === 0) this.#wakeWriter();
  }

  /**
   * The reader's debloated budget (Flink's buffer debloating): at most `segments` in flight
   * (0: the whole ring), each published once it holds `fillBytes` (0: when full). A larger budget
   * wakes a writer waiting for credit.
   */
  setBudget(segments: number, fillBytes: number): void {
    const c = this.#control;
    const before = this.#limit();
    Atomics.store(c, BUDGET, segments >= this.segments ? 0 : Math.max(1, segments));
    Atomics.store(c, FILL_LIMIT, fillBytes >= this.segmentSize - SEGMENT_HEADER ? 0 : Math.max(0, fillBytes));
    if (this.#limit() > before && Atomics.load(c, WRITER_WAITING) !== 0) this.#wakeWriter();
  }

  /** The budget now: segments in flight, and payload bytes per segment. */
  budget(): { readonly segments: number; readonly fillBytes: number } {
    const fill = Atomics.load(this.#control, FILL_LIMIT);
    return { segments: this.#limit(), fillBytes: fill > 0 ? fill : this.segmentSize - SEGMENT_HEADER };
  }

  #limit(): number {
    const budget = Atomics.load(this.#control, BUDGET);
    return budget > 0 ? Math.min(budget, this.segments) : this.segments;
  }

  #wakeWriter(): void {
    const c = this.#control;
    Atomics.store(c, WRITER_WAITING, 0);
    Atomics.notify(c, CREDIT_SIGNAL);
  }

  /**
   * The reader has read every segment up to `next` and has nothing else: from now on a publish
   * wakes it. False when one came in meanwhile (read it now).
   */
  hungry(next: number): boolean {
    const c = this.#control;
    Atomics.store(c, READER_HUNGRY, 1);
    if (Atomics.load(c, PUBLISHED) !== next) {
      Atomics.store(c, READER_HUNGRY, 0);
      return false;
    }
    return true;
  }

  /** The oldest priority event not yet taken, copied out of its slot (which is then free). */
  takePriority(): PriorityEntry | undefined {
    const c = this.#control;
    const read = Atomics.load(c, PRIORITY_READ);
    if (read === Atomics.load(c, PRIORITY_WRITTEN)) return undefined;
    const start = CONTROL_BYTES + (read & (PRIORITY_SLOTS - 1)) * PRIORITY_SLOT_BYTES;
    const length = this.#views.getUint32(start, true);
    const publishedBefore = this.#views.getInt32(start + 4, true);
    const bytes = this.#bytes.slice(start + PRIORITY_HEADER, start + PRIORITY_HEADER + length);
    Atomics.store(c, PRIORITY_READ, (read + 1) | 0);
    return { bytes, publishedBefore };
  }

  signal(): number {
    return Atomics.load(this.#control, SIGNAL);
  }

  /**
   * Resolves once the writer published a segment or a priority event after `seen` (a signal()
   * value), or the ring closed. Undefined when that happened already.
   */
  waitForData(seen: number): Promise<unknown> | undefined {
    return waitUnlessChanged(this.#control, SIGNAL, READER_WAITING, seen, CLOSED);
  }

  // ---- both ----

  /** Ends the channel: pending waits on either side resolve, so nothing holds on to the memory. */
  close(): void {
    const c = this.#control;
    Atomics.store(c, CLOSED, 1);
    Atomics.add(c, SIGNAL, 1);
    Atomics.add(c, CREDIT_SIGNAL, 1);
    Atomics.notify(c, SIGNAL);
    Atomics.notify(c, CREDIT_SIGNAL);
    this.#doorbell?.ring();
  }

  get closed(): boolean {
    return Atomics.load(this.#control, CLOSED) !== 0;
  }

  #segmentStart(index: number): number {
    return this.#dataStart + index * this.segmentSize;
  }
}
