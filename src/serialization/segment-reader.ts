import type { Codec } from './codec.ts';
import { DataInput } from './data-input.ts';
import { RECORDS, SEGMENT_HEADER, SPAN_FIRST, SPAN_HEADER, SPAN_NEXT } from './segment-format.ts';
import { SerializationError } from './serialization-error.ts';

/**
 * Reads what SegmentWriter wrote, one segment at a time and in order (segment-format.ts). A
 * spanning record is gathered into a buffer of its own until its last byte has arrived.
 */
export class SegmentReader<T> {
  readonly #codec: Codec<T>;
  readonly #input = new DataInput(new Uint8Array(0));
  #span: Uint8Array | undefined;
  #spanFilled = 0;

  constructor(codec: Codec<T>) {
    this.#codec = codec;
  }

  /** Whether a record is half-way across segments. */
  get spanning(): boolean {
    return this.#span !== undefined;
  }

  /** Calls onRecord with each record that ends in this segment, in order. */
  read(segment: Uint8Array, used: number, onRecord: (value: T) => void): void {
    if (used < SEGMENT_HEADER || used > segment.length) throw SerializationError.corrupt(`a segment of ${segment.length} bytes said to hold ${used}`, 0);
    const kind = segment[0];
    if (kind !== SPAN_NEXT && this.#span) throw SerializationError.corrupt(`a segment of kind ${kind} while a record of ${this.#span.length} bytes had ${this.#spanFilled} of them`, 0);
    switch (kind) {
      case RECORDS:
        return this.#records(segment, SEGMENT_HEADER, used, onRecord);
      case SPAN_FIRST:
        return this.#spanFirst(segment, used);
      case SPAN_NEXT:
        return this.#spanNext(segment, used, onRecord);
      default:
        throw SerializationError.corrupt(`a segment of kind ${kind}`, 0);
    }
  }

  #records(segment: Uint8Array, from: number, used: number, onRecord: (value: T) => void): void {
    const input = this.#input;
    input.reset(segment, from, used);
    while (input.pos < used) onRecord(this.#codec.decode(input));
  }

  #spanFirst(segment: Uint8Array, used: number): void {
    if (used < SPAN_HEADER) throw SerializationError.corrupt('a spanning segment without its length', 0);
    const length = new DataView(segment.buffer, segment.byteOffset, segment.byteLength).getUint32(1, true);
    const chunk = used - SPAN_HEADER;
    if (chunk > length) throw SerializationError.corrupt(`a spanning record of ${length} bytes with ${chunk} in its first segment`, SPAN_HEADER);
    this.#span = new Uint8Array(length);
    this.#span.set(segment.subarray(SPAN_HEADER, used));
    this.#spanFilled = chunk;
  }

  #spanNext(segment: Uint8Array, used: number, onRecord: (value: T) => void): void {
    const span = this.#span;
    if (!span) throw SerializationError.corrupt('a span continuation without its start', 0);
    const n = Math.min(span.length - this.#spanFilled, used - SEGMENT_HEADER);
    span.set(segment.subarray(SEGMENT_HEADER, SEGMENT_HEADER + n), this.#spanFilled);
    this.#spanFilled += n;
    if (this.#spanFilled < span.length) return;
    this.#span = undefined;
    this.#deliverSpan(span, onRecord);
    this.#records(segment, SEGMENT_HEADER + n, used, onRecord);
  }

  #deliverSpan(span: Uint8Array, onRecord: (value: T) => void): void {
    const input = new DataInput(span);
    const value = this.#codec.decode(input);
    if (input.remaining !== 0) throw SerializationError.corrupt(`a spanning record of ${span.length} bytes decoded from ${input.pos}`, input.pos);
    onRecord(value);
  }
}
