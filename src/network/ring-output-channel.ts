import type { Clock } from '../clock/clock.ts';
import type { Codec } from '../serialization/codec.ts';
import { SerializationError } from '../serialization/serialization-error.ts';
import { encodePriority, FrameWriter } from './channel-frames.ts';
import { OutputChannel } from './output-channel.ts';
import { NO_TIMESTAMP } from './record-timestamp.ts';
import type { SegmentRing } from './segment-ring.ts';
import type { Barrier, RecordBuffer, StreamEvent } from './stream-event.ts';

/** A record buffer of the backlog: records that found no free segment, with how many have gone since. */
interface QueuedRecords extends RecordBuffer {
  readonly timestamps: number[];
  sent: number;
}

/** How often a writer whose priority slots are all taken looks again (a reader that fell far behind). */
const PRIORITY_RETRY_MS = 1;

/**
 * The sending end of a channel to another thread: records are serialized straight into the next
 * free segment of the channel's shared-memory ring; a segment is published when full, at an
 * event, when the task flushes (idle, buffer timeout). No free segment means no credit: records
 * wait in the backlog as objects, the channel is not writable, and the writer waits (Atomics) for
 * the reader to release one. No postMessage on the data path.
 */
export class RingOutputChannel extends OutputChannel {
  readonly #ring: SegmentRing;
  readonly #frames: FrameWriter;
  readonly #clock: Clock;
  /** A segment taken from the ring and being filled. */
  #open = false;
  /** The rest of a record too large for one segment, still to be copied into the next ones. */
  #span: { readonly bytes: Uint8Array; offset: number } | undefined;
  #waitingForCredit = false;
  #closed = false;
  #bytesOut = 0;
  readonly #pendingPriority: Uint8Array[] = [];

  readonly #context: { readonly operatorUid?: string; readonly edge?: string };

  /** `context`: what a record that cannot be serialized is reported against (the emitting operator, the edge). */
  constructor(ring: SegmentRing, codec: Codec<unknown>, clock: Clock, context: { readonly operatorUid?: string; readonly edge?: string } = {}) {
    super(clock);
    this.#ring = ring;
    this.#frames = new FrameWriter(codec);
    this.#clock = clock;
    this.#context = context;
  }

  emit(record: unknown, timestamp = NO_TIMESTAMP): void {
    try {
      if (this.backlog.length > 0 || this.#span || !this.#write(record, timestamp)) this.#enqueue(record, timestamp);
    } catch (e) {
      throw e instanceof SerializationError ? e.withContext(this.#context) : e;
    }
  }

  flush(): void {
    if (this.#open && this.#frames.used > 0) this.#publish();
  }

  sendPriority(event: StreamEvent): void {
    // What this channel has written so far is published first: the event overtakes it in the
    // ring, and the receiver knows exactly which segments it overtook.
    this.flush();
    this.#sendPriorityBytes(encodePriority({ kind: 'event', event }));
  }

  protected convertDelivered(barrier: Barrier): void {
    this.#sendPriorityBytes(encodePriority({ kind: 'convert', checkpointId: barrier.checkpointId }));
  }

  protected transmitEvent(event: StreamEvent): boolean {
    if (this.#span) return false;
    if (!this.#open && !this.#openSegment()) return false;
    if (!this.#frames.event(event)) {
      this.#publish();
      if (!this.#openSegment()) return false;
      if (!this.#frames.event(event)) {
        // A debloated fill limit below the event's size: this segment takes its whole room.
        this.#frames.begin(this.#ring.nextSegment());
        if (!this.#frames.event(event)) throw new RangeError(`an event does not fit an empty segment of ${this.#ring.segmentSize} bytes`);
      }
    }
    this.#publish();
    return true;
  }

  protected transmitQueued(buffer: RecordBuffer): boolean {
    const q = buffer as QueuedRecords;
    if (this.#span && !this.#continueSpan()) return false;
    while (q.sent < q.records.length) {
      if (!this.#write(q.records[q.sent], q.timestamps[q.sent]!)) return false;
      q.sent++;
      if (this.#span && !this.#continueSpan()) return false;
    }
    return true;
  }

  protected override sentOf(buffer: RecordBuffer): number {
    return (buffer as QueuedRecords).sent;
  }

  protected unsentBatch(): readonly unknown[] {
    return [];
  }

  get usage(): number {
    return 1 - this.#ring.credits() / this.#ring.budget().segments;
  }

  override get bytesOut(): number {
    return this.#bytesOut;
  }

  close(): void {
    this.#closed = true;
    this.cancelConversions();
    this.#ring.close();
  }

  /** Into the open segment, or the next one; false when no segment is free (nothing written). */
  #write(record: unknown, timestamp: number): boolean {
    if (!this.#open && !this.#openSegment()) return false;
    if (this.#frames.record(record, timestamp)) return true;
    if (this.#frames.used > 0) {
      this.#publish();
      if (!this.#openSegment()) return false;
      if (this.#frames.record(record, timestamp)) return true;
    }
    // Larger than an empty segment: it spans as many as it takes, and nothing passes it.
    this.#span = { bytes: this.#frames.span(record, timestamp).slice(), offset: 0 };
    this.#continueSpan();
    return true;
  }

  /** Copies the spanning record on while segments are free; true once it is all in. */
  #continueSpan(): boolean {
    const span = this.#span!;
    while (span.offset < span.bytes.length) {
      if (!this.#open && !this.#openSegment()) return false;
      span.offset = this.#frames.copySpan(span.bytes, span.offset);
      if (span.offset < span.bytes.length) this.#publish();
    }
    this.#span = undefined;
    return true;
  }

  #enqueue(record: unknown, timestamp: number): void {
    const last = this.backlog[this.backlog.length - 1];
    if (last?.kind === 'records') {
      last.records.push(record);
      (last as QueuedRecords).timestamps.push(timestamp);
    } else {
      const q: QueuedRecords = { kind: 'records', records: [record], bytes: 0, timestamps: [timestamp], sent: 0 };
      this.backlog.push(q);
    }
    this.#awaitCredit();
  }

  #openSegment(): boolean {
    if (this.#ring.credits() <= 0) {
      this.#awaitCredit();
      return false;
    }
    this.#frames.begin(this.#ring.nextWritableSegment());
    this.#open = true;
    return true;
  }

  #publish(): void {
    const used = this.#frames.finish();
    this.#ring.publish(used);
    this.#bytesOut += used;
    this.#open = false;
  }

  /** Waits for the reader to release a segment, then sends what waits. */
  #awaitCredit(): void {
    if (this.#waitingForCredit || this.#closed) return;
    for (;;) {
      // The reader closed the ring (its task was cancelled, a failover is under way): no credit
      // will ever come, and a wait on a closed ring returns at once, so waiting again would spin
      // this thread forever. What waits is dropped with the attempt.
      if (this.#ring.closed) return;
      const seen = this.#ring.creditSignal();
      if (this.#ring.credits() > 0) {
        // Credit came back in the meantime: what waits can go on the next turn.
        this.#waitingForCredit = true;
        queueMicrotask(() => this.#credited());
        return;
      }
      const wait = this.#ring.waitForCredit(seen);
      if (wait === undefined) continue;
      this.#waitingForCredit = true;
      void wait.then(() => this.#credited());
      return;
    }
  }

  #credited(): void {
    this.#waitingForCredit = false;
    if (this.#closed) return;
    this.#retryPriority();
    // A record that spans segments goes on first, also when nothing waits behind it: with only
    // the span left, drainBacklog() has nothing to send, and credit that came back would call
    // this again and again in microtasks without the span moving (the thread hung for good).
    if (this.#span === undefined || this.#continueSpan()) this.drainBacklog();
    if (this.backlog.length > 0 || this.#span) this.#awaitCredit();
  }

  #sendPriorityBytes(bytes: Uint8Array): void {
    if (this.#pendingPriority.length === 0 && this.#ring.priorityFree()) {
      this.#ring.publishPriority(bytes);
      return;
    }
    this.#pendingPriority.push(bytes);
    this.#clock.schedule(() => this.#retryPriority(), PRIORITY_RETRY_MS);
  }

  #retryPriority(): void {
    const pending = this.#pendingPriority;
    while (pending.length > 0 && this.#ring.priorityFree() && !this.#closed) this.#ring.publishPriority(pending.shift()!);
    if (pending.length > 0 && !this.#closed && !this.#ring.closed) this.#clock.schedule(() => this.#retryPriority(), PRIORITY_RETRY_MS);
  }
}
