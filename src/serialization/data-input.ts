import { readAsciiShort, SHORT_ASCII_MAX } from './read-ascii-short.ts';
import { cachedAscii, CACHED_STRING_MAX, CACHED_STRING_READ } from './short-string-cache.ts';
import { SerializationError } from './serialization-error.ts';

const TWO_32 = 0x100000000;

/**
 * A reader over buf[offset, end) with bounds checks: reading past the end, or bytes that cannot
 * be what is read (a varint too long, a flag that is neither 0 nor 1), throw SerializationError
 * naming the offset. Strings and byte arrays are copied out, never views: segments are reused.
 */
export class DataInput {
  buf: Uint8Array;
  view: DataView;
  /** The same memory as a Buffer, for its UTF-8 decoder. */
  text: Buffer;
  pos: number;
  end: number;

  constructor(buf: Uint8Array, offset = 0, end = buf.length) {
    buf = plain(buf);
    this.buf = buf;
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    this.text = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
    this.pos = offset;
    this.end = end;
  }

  reset(buf: Uint8Array, offset = 0, end = buf.length): void {
    buf = plain(buf);
    if (buf.buffer !== this.buf.buffer || buf.byteOffset !== this.buf.byteOffset || buf.length !== this.buf.length) {
      this.buf = buf;
      this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
      this.text = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
    }
    this.pos = offset;
    this.end = end;
  }

  get remaining(): number {
    return this.end - this.pos;
  }

  fail(problem: string, offset = this.pos): never {
    throw SerializationError.corrupt(problem, offset);
  }

  require(n: number): void {
    if (this.pos + n > this.end) this.fail(`needs ${n} bytes, ${this.end - this.pos} left`);
  }

  readByte(): number {
    if (this.pos >= this.end) this.fail('needs 1 byte, 0 left');
    return this.buf[this.pos++]!;
  }

  readBoolean(): boolean {
    const b = this.readByte();
    if (b > 1) this.fail(`a boolean byte is ${b}`, this.pos - 1);
    return b === 1;
  }

  /** A flag byte of a nullable value: true when a value follows. */
  readPresent(): boolean {
    const b = this.readByte();
    if (b > 1) this.fail(`a nullable's presence byte is ${b}`, this.pos - 1);
    return b === 1;
  }

  readVarUint(): number {
    const pos = this.pos;
    if (pos + 2 <= this.end) {
      const b0 = this.buf[pos]!;
      if (b0 < 0x80) {
        this.pos = pos + 1;
        return b0;
      }
      const b1 = this.buf[pos + 1]!;
      if (b1 < 0x80) {
        this.pos = pos + 2;
        return (b0 & 0x7f) | (b1 << 7);
      }
    }
    return this.readVarUintSlow();
  }

  private readVarUintSlow(): number {
    const start = this.pos;
    let b = this.readByte();
    if (b < 0x80) return b;
    let n = b & 0x7f;
    let scale = 0x80;
    for (let i = 1; i < 8; i++) {
      b = this.readByte();
      n += (b & 0x7f) * scale;
      if (b < 0x80) return n <= Number.MAX_SAFE_INTEGER ? n : this.fail('a varint beyond 2^53-1', start);
      scale *= 0x80;
    }
    return this.fail('a varint longer than 8 bytes', start);
  }

  /** A count of elements each at least `minSize` bytes long: more than the bytes left can hold is corruption, not an allocation. */
  readLength(minSize: number): number {
    const start = this.pos;
    const n = this.readVarUint();
    if (minSize > 0 && n * minSize > this.end - this.pos) this.fail(`a length of ${n} with ${this.end - this.pos} bytes left`, start);
    return n;
  }

  /** Up to 4 bytes (|v| < 2^27) in int32 arithmetic without a check per byte; longer ones on the slow path. */
  readInt(): number {
    const buf = this.buf;
    const pos = this.pos;
    if (pos + 4 <= this.end) {
      let b = buf[pos]!;
      let zz = b & 0x7f;
      if (b < 0x80) {
        this.pos = pos + 1;
        return (zz >>> 1) ^ -(zz & 1);
      }
      b = buf[pos + 1]!;
      zz |= (b & 0x7f) << 7;
      if (b < 0x80) {
        this.pos = pos + 2;
        return (zz >>> 1) ^ -(zz & 1);
      }
      b = buf[pos + 2]!;
      zz |= (b & 0x7f) << 14;
      if (b < 0x80) {
        this.pos = pos + 3;
        return (zz >>> 1) ^ -(zz & 1);
      }
      b = buf[pos + 3]!;
      zz |= (b & 0x7f) << 21;
      if (b < 0x80) {
        this.pos = pos + 4;
        return (zz >>> 1) ^ -(zz & 1);
      }
    }
    return this.readIntSlow();
  }

  private readIntSlow(): number {
    const start = this.pos;
    let lo = 0;
    let hi = 0;
    for (let i = 0; i < 10; i++) {
      const b = this.readByte() & 0xff;
      const bits = b & 0x7f;
      const shift = 7 * i;
      if (shift < 28) lo |= bits << shift;
      else if (shift === 28) {
        lo |= bits << 28;
        hi = bits >>> 4;
      } else hi |= bits << (shift - 32);
      if (b < 0x80) return this.unzigzag(lo >>> 0, hi >>> 0, start);
    }
    return this.fail('an int varint longer than 10 bytes', start);
  }

  private unzigzag(lo: number, hi: number, start: number): number {
    const sign = -(lo & 1);
    const rlo = (((lo >>> 1) | (hi << 31)) ^ sign) >>> 0;
    const rhi = (hi >>> 1) ^ sign;
    const v = rhi * TWO_32 + rlo;
    if (!Number.isSafeInteger(v)) this.fail('an int beyond 2^53-1', start);
    return v;
  }

  readDouble(): number {
    this.require(8);
    const v = this.view.getFloat64(this.pos, true);
    this.pos += 8;
    return v;
  }

  readBigInt64(): bigint {
    this.require(8);
    const v = this.view.getBigInt64(this.pos, true);
    this.pos += 8;
    return v;
  }

  /**
   * A short ASCII string (a one-byte length up to 12) comes from the string cache on a path small
   * enough to be inlined into a compiled decoder; anything else takes readStringAnyLength.
   */
  readString(): string {
    const pos = this.pos;
    const n = this.buf[pos]!;
    const p = pos + 1;
    if (n <= CACHED_STRING_MAX && p + n <= this.end && p + CACHED_STRING_READ <= this.buf.length) {
      const s = cachedAscii(this.view, this.buf, p, n);
      if (s !== undefined) {
        this.pos = p + n;
        return s;
      }
    }
    return this.readStringAnyLength();
  }

  /**
   * The n bytes at p as a string, the caller having checked they lie within the input (after a
   * length prefix, or in a block's string column, whose lengths are apart from its bytes).
   */
  stringAt(p: number, n: number): string {
    if (n <= CACHED_STRING_MAX && p + CACHED_STRING_READ <= this.buf.length) {
      const s = cachedAscii(this.view, this.buf, p, n);
      if (s !== undefined) return s;
    } else if (n <= SHORT_ASCII_MAX) {
      const s = readAsciiShort(this.buf, p, n);
      if (s !== undefined) return s;
    }
    // Buffer's decoder rather than TextDecoder: ~150 against ~250 ns for 1 KiB from a
    // SharedArrayBuffer (Node 20, this machine). Both replace invalid bytes with U+FFFD. Called
    // as utf8Slice, what toString('utf8') calls after checking its arguments: ~9 ns less.
    return (this.text as Buffer & { utf8Slice(start: number, end: number): string }).utf8Slice(p, p + n);
  }

  private readStringAnyLength(): string {
    const n = this.readVarUint();
    const p = this.pos;
    if (n > this.end - p) this.fail(`a string of ${n} bytes with ${this.end - p} left`, p);
    this.pos = p + n;
    return this.stringAt(p, n);
  }

  /** Length-prefixed bytes, copied. */
  readBytes(): Uint8Array {
    const n = this.readLength(1);
    return this.readRaw(n).slice();
  }

  /** The next n bytes as a view (the caller copies or consumes them before the buffer is reused). */
  readRaw(n: number): Uint8Array {
    this.require(n);
    const p = this.pos;
    this.pos = p + n;
    return this.buf.subarray(p, p + n);
  }
}

/**
 * A Buffer's slice() is a view, not a copy, and subarrays of it are Buffers: readBytes would hand
 * out views into a whole file read into a Buffer (keeping it alive) that are not plain
 * Uint8Arrays. Reading through a plain view of the same memory avoids both.
 */
function plain(buf: Uint8Array): Uint8Array {
  return Buffer.isBuffer(buf) ? new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength) : buf;
}
