/**
 * A cursor over a byte range of a binlog event. Every read checks the range, so a truncated or
 * misparsed event fails with the offset instead of reading the next event's bytes.
 */
export class BinaryReader {
  readonly buf: Buffer;
  offset: number;
  readonly end: number;

  constructor(buf: Buffer, offset = 0, end = buf.length) {
    this.buf = buf;
    this.offset = offset;
    this.end = end;
  }

  remaining(): number {
    return this.end - this.offset;
  }

  #take(n: number): number {
    const at = this.offset;
    if (n < 0 || at + n > this.end) throw new RangeError(`binlog event truncated: wanted ${n} bytes at offset ${at}, ${this.end - at} left`);
    this.offset = at + n;
    return at;
  }

  skip(n: number): void {
    this.#take(n);
  }

  u8(): number {
    return this.buf[this.#take(1)]!;
  }

  u16(): number {
    return this.buf.readUInt16LE(this.#take(2));
  }

  u32(): number {
    return this.buf.readUInt32LE(this.#take(4));
  }

  /** Little-endian unsigned integer of 1..6 bytes. */
  uintLE(n: number): number {
    return n === 0 ? 0 : this.buf.readUIntLE(this.#take(n), n);
  }

  /** Little-endian signed integer of 1..6 bytes. */
  intLE(n: number): number {
    return this.buf.readIntLE(this.#take(n), n);
  }

  /** Big-endian unsigned integer of 1..6 bytes. */
  uintBE(n: number): number {
    return n === 0 ? 0 : this.buf.readUIntBE(this.#take(n), n);
  }

  u64(): bigint {
    return this.buf.readBigUInt64LE(this.#take(8));
  }

  i64(): bigint {
    return this.buf.readBigInt64LE(this.#take(8));
  }

  /** An unsigned 64-bit value that must fit a JS number exactly (positions, counts). */
  u64Number(): number {
    const v = this.u64();
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError(`64-bit value ${v} at offset ${this.offset - 8} exceeds 2^53`);
    return Number(v);
  }

  f32(): number {
    return this.buf.readFloatLE(this.#take(4));
  }

  f64(): number {
    return this.buf.readDoubleLE(this.#take(8));
  }

  /** The protocol's length-encoded integer. */
  lenenc(): number {
    const first = this.u8();
    if (first < 0xfb) return first;
    if (first === 0xfc) return this.uintLE(2);
    if (first === 0xfd) return this.uintLE(3);
    if (first === 0xfe) return this.u64Number();
    throw new RangeError(`invalid length-encoded integer prefix 0x${first.toString(16)} at offset ${this.offset - 1}`);
  }

  /** A view (not a copy) of the next n bytes. */
  bytes(n: number): Buffer {
    const at = this.#take(n);
    return this.buf.subarray(at, at + n);
  }

  rest(): Buffer {
    return this.bytes(this.remaining());
  }

  string(n: number, encoding: BufferEncoding = 'utf8'): string {
    const at = this.#take(n);
    return this.buf.toString(encoding, at, at + n);
  }
}
