import type { Codec } from './codec.ts';
import { DataOutput } from './data-output.ts';
import { SEGMENT_FULL } from './segment-full.ts';
import { RECORDS, SEGMENT_HEADER, SPAN_FIRST, SPAN_HEADER, SPAN_NEXT } from './segment-format.ts';

/** Where segments come from and go to: a pool of SharedArrayBuffer slices, a socket's buffers. */
export interface SegmentTarget {
  /** An empty segment to write into (its whole length is usable). */
  acquire(): Uint8Array;
  /** A segment is done: its first `used` bytes are to be sent. */
  emit(segment: Uint8Array, used: number): void;
}

/** A codec that wants to know where a reader may start (InferringCodec repeats its schema). */
interface SegmentAware {
  startSegment?(): void;
}

/**
 * Writes records into segments (segment-format.ts): straight into the segment when the record
 * fits; a record that does not fit is rewound and written again into the next segment; a record
 * larger than a segment is written to a growable scratch buffer and copied across segments.
 * `flush()` is for barriers, timeouts and the end of input.
 */
export class SegmentWriter<T> {
  readonly #codec: Codec<T> & SegmentAware;
  readonly #target: SegmentTarget;
  readonly #out = DataOutput.bounded(new Uint8Array(0));
  readonly #scratch = DataOutput.growable(64 * 1024);
  #segment: Uint8Array | undefined;

  constructor(codec: Codec<T>, target: SegmentTarget) {
    this.#codec = codec;
    this.#target = target;
  }

  write(value: T): void {
    if (!this.#segment) this.#open();
    const start = this.#out.pos;
    if (this.#tryEncode(value, start)) return;
    if (start > SEGMENT_HEADER) {
      this.flush();
      this.#open();
      if (this.#tryEncode(value, SEGMENT_HEADER)) return;
    }
    this.#writeSpanning(value);
  }

  /** Sends the current segment if it holds anything; the next record starts a new one. */
  flush(): void {
    if (this.#segment && this.#out.pos > SEGMENT_HEADER) {
      this.#target.emit(this.#segment, this.#out.pos);
      this.#segment = undefined;
    }
  }

  #open(): void {
    const segment = this.#target.acquire();
    if (segment.length <= SPAN_HEADER) throw new RangeError(`a segment of ${segment.length} bytes cannot hold any record`);
    segment[0] = RECORDS;
    this.#segment = segment;
    this.#out.reset(segment, SEGMENT_HEADER, segment.length);
    this.#codec.startSegment?.();
  }

  /** True when the record went in; on SEGMENT_FULL, rewinds to its start. Other errors (a bad value) also rewind, then go to the caller. */
  #tryEncode(value: T, start: number): boolean {
    try {
      this.#codec.encode(value, this.#out);
      return true;
    } catch (e) {
      this.#out.pos = start;
      if (e === SEGMENT_FULL) return false;
      throw e;
    }
  }

  /** The current segment is empty and still too small: SPAN_FIRST, then SPAN_NEXT segments. */
  #writeSpanning(value: T): void {
    this.#scratch.pos = 0;
    this.#codec.encode(value, this.#scratch);
    const bytes = this.#scratch.written();
    let segment = this.#segment!;
    segment[0] = SPAN_FIRST;
    new DataView(segment.buffer, segment.byteOffset, segment.byteLength).setUint32(1, bytes.length, true);
    let offset = copyChunk(bytes, 0, segment, SPAN_HEADER);
    this.#target.emit(segment, segment.length);
    while (offset < bytes.length) {
      segment = this.#target.acquire();
      segment[0] = SPAN_NEXT;
      const copied = copyChunk(bytes, offset, segment, SEGMENT_HEADER);
      offset += copied;
      this.#segment = segment;
      this.#out.reset(segment, SEGMENT_HEADER + copied, segment.length);
      if (this.#out.pos === segment.length) this.flush();
    }
  }
}

/** Copies as much of bytes[from..] as fits at segment[at..] and returns how much. */
function copyChunk(bytes: Uint8Array, from: number, segment: Uint8Array, at: number): number {
  const n = Math.min(bytes.length - from, segment.length - at);
  segment.set(bytes.subarray(from, from + n), at);
  return n;
}
