import { Packr } from 'msgpackr';
import type { BlockWriter } from '../serialization/block-codec.ts';
import type { Codec } from '../serialization/codec.ts';
import { DataInput } from '../serialization/data-input.ts';
import { DataOutput } from '../serialization/data-output.ts';
import { SEGMENT_FULL } from '../serialization/segment-full.ts';
import { SerializationError } from '../serialization/serialization-error.ts';
import { NO_TIMESTAMP } from './record-timestamp.ts';
import type { StreamEvent } from './stream-event.ts';

/**
 * What a channel's segments hold, as frames back to back up to the segment's used length (the
 * ring header says how much of a segment is used):
 *
 *   0x01 RECORD        a record, as the edge's codec wrote it (codecs are self-delimiting)
 *   0x03 EVENT         varint length + MessagePack of the event (barriers, end of data: rare)
 *   0x04 SPAN          u32 LE length L of one record (with its frame) too large for a segment, then
 *                      its first bytes up to the end of the segment; the next segments start with
 *   0x05 MORE          the record's next bytes, up to L; frames may follow in the same segment.
 *   0x07 TIMESTAMP     f64 LE event-time timestamp of the record frame (RECORD) that follows
 *                      at once: written only for records that have one, so jobs
 *                      without event time pay nothing. It is part of the record's frame (a
 *                      record moves or spans with its timestamp).
 *   0x08 BLOCK         u32 LE n, a flags byte (bit 0: timestamps), when flagged n f64 LE
 *                      timestamps (NO_TIMESTAMP for a record without one), then n records of a
 *                      declared struct type by column (block-codec.ts): on channels whose codec
 *                      has a block form, a segment's records go as one block, and only a record
 *                      too large for a segment spans (as SPAN frames, by the row codec).
 *
 * A record that does not fit the rest of a segment moves whole to the next one; only one larger
 * than an empty segment spans. Priority events (in the ring's priority slots) are one byte,
 * 0x03 EVENT or 0x06 CONVERT (u32 LE checkpoint id: the receiver converts that aligned barrier,
 * still queued on its side, to unaligned), then the MessagePack of the event.
 */
export const RECORD = 0x01;
export const EVENT = 0x03;
export const SPAN = 0x04;
export const MORE = 0x05;
export const CONVERT = 0x06;
export const TIMESTAMP = 0x07;
export const BLOCK = 0x08;

/** BLOCK, u32 n, flags. */
const BLOCK_HEADER = 6;
const TIMED = 1;

const SPAN_HEADER = 5;
const events = new Packr({ useRecords: false, moreTypes: true });

export function encodeEvent(event: StreamEvent): Uint8Array {
  return events.pack(event);
}

/** A priority slot's bytes: an event that overtakes, or the order to convert a queued barrier. */
export function encodePriority(p: { kind: 'event'; event: StreamEvent } | { kind: 'convert'; checkpointId: number }): Uint8Array {
  if (p.kind === 'convert') {
    const b = new Uint8Array(5);
    b[0] = CONVERT;
    new DataView(b.buffer).setUint32(1, p.checkpointId, true);
    return b;
  }
  const body = encodeEvent(p.event);
  const b = new Uint8Array(body.length + 1);
  b[0] = EVENT;
  b.set(body, 1);
  return b;
}

export function decodePriority(bytes: Uint8Array): { kind: 'event'; event: StreamEvent } | { kind: 'convert'; checkpointId: number } {
  if (bytes[0] === CONVERT) return { kind: 'convert', checkpointId: new DataView(bytes.buffer, bytes.byteOffset).getUint32(1, true) };
  if (bytes[0] !== EVENT) throw SerializationError.corrupt(`a priority slot of kind ${bytes[0]}`, 0);
  return { kind: 'event', event: events.unpack(bytes.subarray(1)) as StreamEvent };
}

/**
 * Writes frames into one segment at a time. `record` and `event` return false when the frame does
 * not fit what is left of the segment (nothing of it is written); a record that cannot fit even
 * an empty segment is written by `span` into a scratch buffer, for the caller to copy over as
 * many segments as it takes.
 */
export class FrameWriter {
  readonly #codec: Codec<unknown> & { startSegment?(): void };
  readonly #out = DataOutput.bounded(new Uint8Array(0));
  readonly #scratch = DataOutput.growable(64 * 1024);
  /** The block being filled, on a channel whose codec has a block form: written into the segment when it is finished. */
  readonly #block: BlockWriter | undefined;
  #times = new Float64Array(512);
  #timed = false;

  constructor(codec: Codec<unknown>) {
    this.#codec = codec;
    this.#block = codec.block?.writer();
  }

  /** Starts writing into a fresh segment. */
  begin(segment: Uint8Array): void {
    this.#out.reset(segment, 0, segment.length);
    this.#codec.startSegment?.();
  }

  /** Bytes used of the current segment (with the block being filled). */
  get used(): number {
    const block = this.#block;
    return block === undefined || block.count === 0 ? this.#out.pos : this.#out.pos + this.#blockBytes(block);
  }

  /** Writes what is pending into the segment (the block being filled) and returns the bytes used: the segment is ready to go. */
  finish(): number {
    this.#seal();
    return this.#out.pos;
  }

  record(value: unknown, timestamp = NO_TIMESTAMP): boolean {
    if (this.#block !== undefined) return this.#blockRecord(this.#block, value, timestamp);
    const out = this.#out;
    const start = out.pos;
    try {
      if (timestamp === NO_TIMESTAMP && start < out.limit) {
        // The frame byte written here rather than in #frame: one call less on every record.
        out.buf[start] = RECORD;
        out.pos = start + 1;
        this.#codec.encode(value, out);
      } else {
        this.#frame(value, timestamp, out);
      }
      return true;
    } catch (e) {
      out.pos = start;
      if (e === SEGMENT_FULL) return false;
      throw e;
    }
  }

  event(event: StreamEvent): boolean {
    this.#seal();
    const bytes = encodeEvent(event);
    const out = this.#out;
    if (out.limit - out.pos < bytes.length + 6) return false;
    out.writeByte(EVENT);
    out.writeVarUint(bytes.length);
    out.writeRaw(bytes);
    return true;
  }

  /** The record as one spanning frame's bytes (SPAN header included). */
  span(value: unknown, timestamp = NO_TIMESTAMP): Uint8Array {
    const s = this.#scratch;
    s.pos = SPAN_HEADER;
    this.#frame(value, timestamp, s);
    const length = s.pos - SPAN_HEADER;
    s.buf[0] = SPAN;
    s.view.setUint32(1, length, true);
    return s.written();
  }

  /** Copies spanning bytes from `offset` into the current segment; a continuation starts with MORE. Returns the new offset. */
  copySpan(bytes: Uint8Array, offset: number): number {
    const out = this.#out;
    if (offset > 0) out.writeByte(MORE);
    const n = Math.min(bytes.length - offset, out.limit - out.pos);
    out.buf.set(bytes.subarray(offset, offset + n), out.pos);
    out.pos += n;
    return offset + n;
  }

  /** Into the block; false (the block as it was) when the block would no longer fit the segment. */
  #blockRecord(block: BlockWriter, value: unknown, timestamp: number): boolean {
    const size = block.add(value);
    if (timestamp === NO_TIMESTAMP && !this.#timed) {
      if (this.#out.pos + BLOCK_HEADER + size <= this.#out.limit) return true;
      block.undo();
      return false;
    }
    return this.#timedBlockRecord(block, size, timestamp);
  }

  /** The block gets (or has) a timestamp column: NO_TIMESTAMP for the records without one. */
  #timedBlockRecord(block: BlockWriter, size: number, timestamp: number): boolean {
    const n = block.count - 1;
    const wasTimed = this.#timed;
    if (!wasTimed) {
      this.#timed = true;
      this.#times.fill(NO_TIMESTAMP, 0, n);
    }
    if (n === this.#times.length) {
      const times = new Float64Array(n * 2);
      times.set(this.#times);
      this.#times = times;
    }
    this.#times[n] = timestamp;
    if (this.#out.pos + BLOCK_HEADER + 8 * (n + 1) + size <= this.#out.limit) return true;
    block.undo();
    this.#timed = wasTimed;
    return false;
  }

  #blockBytes(block: BlockWriter): number {
    return BLOCK_HEADER + (this.#timed ? 8 * block.count : 0) + block.size();
  }

  /** The block being filled into the segment (its room was checked record by record). */
  #seal(): void {
    const block = this.#block;
    if (block === undefined || block.count === 0) return;
    const out = this.#out;
    const n = block.count;
    out.buf[out.pos] = BLOCK;
    out.view.setUint32(out.pos + 1, n, true);
    out.buf[out.pos + 5] = this.#timed ? TIMED : 0;
    out.pos += BLOCK_HEADER;
    if (this.#timed) {
      for (let i = 0; i < n; i++) out.view.setFloat64(out.pos + 8 * i, this.#times[i]!, true);
      out.pos += 8 * n;
      this.#timed = false;
    }
    block.writeTo(out);
  }

  #frame(value: unknown, timestamp: number, out: DataOutput): void {
    if (timestamp !== NO_TIMESTAMP) {
      out.ensure(9);
      out.buf[out.pos] = TIMESTAMP;
      out.view.setFloat64(out.pos + 1, timestamp, true);
      out.pos += 9;
    }
    out.writeByte(RECORD);
    this.#codec.encode(value, out);
  }
}

/** What a segment held, in order: runs of records and events. */
export interface FrameSink {
  /** `timestamp` is NO_TIMESTAMP for a record sent without one. */
  record(value: unknown, timestamp: number): void;
  event(event: StreamEvent): void;
  /** Where records without a timestamp may be pushed as they are (none since the last event had one); undefined: each goes through record(). */
  plainRecords(): unknown[] | undefined;
}

/** Reads the frames of successive segments of one channel, gathering spanning records across them. */
export class FrameReader {
  readonly #codec: Codec<unknown>;
  /** A block's records on their way to a sink that takes them one by one. */
  readonly #blockRecords: unknown[] = [];
  readonly #input = new DataInput(new Uint8Array(0));
  #span: Uint8Array | undefined;
  #spanFilled = 0;

  constructor(codec: Codec<unknown>) {
    this.#codec = codec;
  }

  read(segment: Uint8Array, sink: FrameSink): void {
    const input = this.#input;
    input.reset(segment, 0, segment.length);
    if (this.#span) {
      if (input.readByte() !== MORE) input.fail('a segment that does not go on with the record spanning into it', 0);
      this.#continueSpan(input, sink);
    }
    while (input.pos < input.end) {
      const plain = sink.plainRecords();
      if (plain !== undefined && this.#readPlain(input, plain)) return;
      this.#frame(input, sink);
    }
  }

  /**
   * A run of records without timestamps, decoded straight into the sink's array: no call to the
   * sink and no frame switch per record (a third of a {word, count} record's decoding cost).
   * True when the segment ended.
   */
  #readPlain(input: DataInput, records: unknown[]): boolean {
    const codec = this.#codec;
    const buf = input.buf;
    const end = input.end;
    while (input.pos < end) {
      if (buf[input.pos] !== RECORD) return false;
      input.pos++;
      records.push(codec.decode(input));
    }
    return true;
  }

  #frame(input: DataInput, sink: FrameSink): void {
    const at = input.pos;
    switch (input.readByte()) {
      case RECORD:
        return sink.record(this.#codec.decode(input), NO_TIMESTAMP);
      case TIMESTAMP: {
        input.require(9);
        const timestamp = input.view.getFloat64(input.pos, true);
        input.pos += 8;
        const kind = input.readByte();
        if (kind === RECORD) return sink.record(this.#codec.decode(input), timestamp);
        return input.fail(`a timestamp followed by a frame of kind ${kind} instead of a record`, at);
      }
      case EVENT: {
        const n = input.readVarUint();
        input.require(n);
        sink.event(events.unpack(input.buf.subarray(input.pos, input.pos + n)) as StreamEvent);
        input.pos += n;
        return;
      }
      case BLOCK:
        return this.#readBlock(input, sink, at);
      case SPAN: {
        input.require(4);
        const length = input.view.getUint32(input.pos, true);
        input.pos += 4;
        this.#span = new Uint8Array(length);
        this.#spanFilled = 0;
        return this.#continueSpan(input, sink);
      }
      default:
        input.fail(`a frame of kind ${input.buf[at]}`, at);
    }
  }

  #readBlock(input: DataInput, sink: FrameSink, at: number): void {
    const block = this.#codec.block;
    if (block === undefined) return input.fail('a block of records on a channel whose codec has no block form', at);
    input.require(5);
    const n = input.view.getUint32(input.pos, true);
    const flags = input.buf[input.pos + 4]!;
    input.pos += 5;
    if (flags > TIMED || n === 0 || n > input.end - input.pos) return input.fail(`a block of ${n} records, flags ${flags}, with ${input.end - input.pos} bytes left`, at);
    const plain = flags === 0 ? sink.plainRecords() : undefined;
    if (plain !== undefined) return block.decode(input, n, plain);
    let times = -1;
    if (flags === TIMED) {
      input.require(8 * n);
      times = input.pos;
      input.pos += 8 * n;
    }
    const records = this.#blockRecords;
    records.length = 0;
    block.decode(input, n, records);
    for (let i = 0; i < n; i++) sink.record(records[i], times < 0 ? NO_TIMESTAMP : input.view.getFloat64(times + 8 * i, true));
    records.length = 0;
  }

  #continueSpan(input: DataInput, sink: FrameSink): void {
    const span = this.#span!;
    const n = Math.min(span.length - this.#spanFilled, input.end - input.pos);
    span.set(input.buf.subarray(input.pos, input.pos + n), this.#spanFilled);
    this.#spanFilled += n;
    input.pos += n;
    if (this.#spanFilled < span.length) return;
    this.#span = undefined;
    const whole = new DataInput(span);
    this.#frame(whole, sink);
    if (whole.remaining !== 0) whole.fail(`a spanning record of ${span.length} bytes decoded to ${whole.pos}`);
  }
}
