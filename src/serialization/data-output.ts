import { SEGMENT_FULL } from './segment-full.ts';
import { writeUtf8Short } from './write-utf8-short.ts';

/**
 * Strings shorter than this are encoded by a charCodeAt loop, longer ones by Buffer's writer. Measured
 * on Node 20 (scratch micro-benchmark, ASCII): the loop costs ~1.5 ns a char, encodeInto ~55-75 ns
 * flat, so they cross between 24 and 32 chars (Buffer's writer is a little cheaper still).
 */
const SHORT_STRING = 32;
/**
 * Buffer's UTF-8 writer, called on any Uint8Array: it writes at an offset, where encodeInto needs
 * a subarray made per string and returns an object. Node 20, ASCII (scratch micro-benchmark):
 * ~61 against ~80 ns at 40 chars, ~123 against ~167 ns at 1000. Both write U+FFFD for a lone
 * surrogate, so the bytes are the same.
 */
const utf8Write = (Buffer.prototype as unknown as { utf8Write(this: Uint8Array, s: string, offset: number, length: number): number }).utf8Write;

/**
 * A writer over a Uint8Array from an offset up to a limit. Bounded (a network segment, maybe in a
 * SharedArrayBuffer): a write that does not fit throws SEGMENT_FULL and leaves `pos` somewhere in
 * the record, so the caller rewinds to the record's start. Growable (state files, scratch for
 * records larger than a segment): the buffer doubles.
 *
 * Fields are public because compiled codecs and segment writers read and rewind `pos`.
 * Little-endian throughout; varints are LEB128.
 */
export class DataOutput {
  buf: Uint8Array;
  view: DataView;
  pos: number;
  limit: number;
  readonly growable: boolean;

  private constructor(buf: Uint8Array, pos: number, limit: number, growable: boolean) {
    this.buf = buf;
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    this.pos = pos;
    this.limit = limit;
    this.growable = growable;
  }

  /** Writes into buf[offset, limit), throwing SEGMENT_FULL past the limit. */
  static bounded(buf: Uint8Array, offset = 0, limit = buf.length): DataOutput {
    return new DataOutput(buf, offset, limit, false);
  }

  static growable(capacity = 256): DataOutput {
    return new DataOutput(new Uint8Array(Math.max(16, capacity)), 0, Math.max(16, capacity), true);
  }

  /** A growable output that starts in `buf` (a buffer kept for reuse). */
  static growableIn(buf: Uint8Array): DataOutput {
    return new DataOutput(buf, 0, buf.length, true);
  }

  /** Points a bounded output at another segment (reusing the object keeps the codecs' call sites monomorphic). */
  reset(buf: Uint8Array, offset = 0, limit = buf.length): void {
    if (buf !== this.buf) {
      this.buf = buf;
      this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    }
    this.pos = offset;
    this.limit = limit;
  }

  /** The bytes written since `start` (a view, valid until the next write or reset). */
  written(start = 0): Uint8Array {
    return this.buf.subarray(start, this.pos);
  }

  ensure(n: number): void {
    if (this.pos + n > this.limit) this.overflow(n);
  }

  private overflow(n: number): void {
    if (!this.growable) throw SEGMENT_FULL;
    const capacity = Math.max(this.buf.length * 2, this.pos + n);
    const next = new Uint8Array(capacity);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
    this.view = new DataView(next.buffer);
    this.limit = capacity;
  }

  writeByte(b: number): void {
    if (this.pos >= this.limit) this.overflow(1);
    this.buf[this.pos++] = b;
  }

  /** 0 <= n <= 2^53-1 (lengths, sizes). */
  writeVarUint(n: number): void {
    if (n < 0x80) return this.writeByte(n);
    if (n < 0x80000000) return this.writeVarUint31(n);
    this.ensure(8);
    const buf = this.buf;
    let pos = this.pos;
    while (n >= 0x80) {
      buf[pos++] = (n % 0x80) | 0x80;
      n = Math.floor(n / 0x80);
    }
    buf[pos++] = n;
    this.pos = pos;
  }

  /** 0 <= n < 2^31, in int32 arithmetic; exactly as many bytes are checked as are written. */
  private writeVarUint31(n: number): void {
    const size = n < 0x4000 ? 2 : n < 0x200000 ? 3 : n < 0x10000000 ? 4 : 5;
    if (this.pos + size > this.limit) this.overflow(size);
    const buf = this.buf;
    let pos = this.pos;
    while (n >= 0x80) {
      buf[pos++] = (n & 0x7f) | 0x80;
      n >>>= 7;
    }
    buf[pos++] = n;
    this.pos = pos;
  }

  /** A safe integer as a zigzag varint: small magnitudes of either sign take one byte. */
  writeInt(v: number): void {
    if (v >= -0x40000000 && v < 0x40000000) {
      const zz = ((v << 1) ^ (v >> 31)) >>> 0;
      if (zz < 0x80) return this.writeByte(zz);
      return this.writeVarUint31(zz);
    }
    // Beyond 31 bits the zigzag of a negative value (2|v|-1) is not exact as a double, so work
    // on the two's-complement words of v, which are.
    const hi = Math.floor(v / 0x100000000);
    const lo = v >>> 0;
    const sign = hi >> 31;
    this.writeVarUint64((lo << 1) ^ sign, ((hi << 1) | (lo >>> 31)) ^ sign);
  }

  /** A varint of the unsigned 64-bit value hi:lo. */
  private writeVarUint64(lo: number, hi: number): void {
    this.ensure(10);
    const buf = this.buf;
    let pos = this.pos;
    lo >>>= 0;
    hi >>>= 0;
    while (hi !== 0 || lo >= 0x80) {
      buf[pos++] = (lo & 0x7f) | 0x80;
      lo = ((lo >>> 7) | (hi << 25)) >>> 0;
      hi >>>= 7;
    }
    buf[pos++] = lo;
    this.pos = pos;
  }

  /** DataView rather than a Float64Array scratch and a byte copy: 0.5 against 2.1 ns a write, 5.5 against 13 ns a read (Node 20, this machine). */
  writeDouble(v: number): void {
    this.ensure(8);
    this.view.setFloat64(this.pos, v, true);
    this.pos += 8;
  }

  /** The caller has checked that v is within int64. */
  writeBigInt64(v: bigint): void {
    this.ensure(8);
    this.view.setBigInt64(this.pos, v, true);
    this.pos += 8;
  }

  writeBoolean(v: boolean): void {
    this.writeByte(v ? 1 : 0);
  }

  /** A length-prefixed UTF-8 string; lone surrogates become U+FFFD. */
  writeString(s: string): void {
    const len = s.length;
    if (len < SHORT_STRING) {
      // Up to 3 bytes a UTF-16 unit, so the length prefix is 1 byte below 43 units: reserve it,
      // write, then fill it in: one pass over the string.
      if (this.pos + 1 + len * 3 > this.limit) this.ensure(1 + utf8Length(s));
      const end = writeUtf8Short(s, this.buf, this.pos + 1);
      this.buf[this.pos] = end - this.pos - 1;
      this.pos = end;
      return;
    }
    this.writeLongString(s, len);
  }

  /** The UTF-8 bytes of s with no length prefix (a block's string column keeps the lengths apart). */
  writeUtf8(s: string): void {
    const len = s.length;
    if (len < SHORT_STRING) {
      this.ensure(len * 3);
      this.pos = writeUtf8Short(s, this.buf, this.pos);
      return;
    }
    // Measured only when the worst case (3 bytes a unit) might not fit: measuring is a pass over the string.
    if (this.pos + len * 3 > this.limit) this.ensure(utf8Length(s));
    this.pos += utf8Write.call(this.buf, s, this.pos, this.limit - this.pos);
  }

  /**
   * The prefix is reserved for the worst case (3 bytes a unit) and written as a padded varint
   * when the string is shorter, so the bytes depend only on the string (deterministic).
   */
  private writeLongString(s: string, len: number): void {
    const width = varUintWidth(len * 3);
    if (this.pos + width + len * 3 > this.limit) this.ensure(width + utf8Length(s));
    const start = this.pos + width;
    const written = utf8Write.call(this.buf, s, start, this.limit - start);
    writePaddedVarUint(this.buf, this.pos, written, width);
    this.pos = start + written;
  }

  /** Length-prefixed bytes. */
  writeBytes(bytes: Uint8Array): void {
    this.writeVarUint(bytes.length);
    this.writeRaw(bytes);
  }

  /** Bytes as they are, no prefix (copying a record made elsewhere). */
  writeRaw(bytes: Uint8Array): void {
    this.ensure(bytes.length);
    this.buf.set(bytes, this.pos);
    this.pos += bytes.length;
  }
}

/** Bytes of `n` as a LEB128 varint. */
export function varUintWidth(n: number): number {
  let width = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 0x80);
    width++;
  }
  return width;
}

function writePaddedVarUint(buf: Uint8Array, pos: number, n: number, width: number): void {
  for (let i = 0; i < width - 1; i++) {
    buf[pos++] = (n & 0x7f) | 0x80;
    n >>>= 7;
  }
  buf[pos] = n;
}

/** UTF-8 bytes of s as writeString writes it (a lone surrogate takes 3, as U+FFFD). */
export function utf8Length(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}
