import { DataOutput } from './data-output.ts';

/**
 * One field's column of a record block (block-codec.ts) while the block is written: values are
 * added a record at a time, the block's exact encoded size is known after every record (so a
 * segment's writer knows at once whether the record fits), and the last records can be taken
 * back (`truncate`: a record that did not fit, or failed half-way through its fields).
 */
export interface BlockColumn {
  /** Bytes the column takes on the wire with `n` records. */
  size(n: number): number;
  truncate(n: number): void;
  /** Writes the first `n` values (the out has room: its size was checked). */
  writeTo(out: DataOutput, n: number): void;
}

/**
 * int, timestamp and double fields: kept as doubles while written; an int column goes on the wire
 * as i32 when every value of the block fits (header byte 4), else as f64 (8), as a double column
 * always is. Fixed widths are what let the reader take a value by index, with no varint to walk.
 */
export class NumberColumn implements BlockColumn {
  values = new Float64Array(512);
  /**
   * The first record whose value needs f64 (0 for a double column): exact, not a flag, so that
   * taking records back gives back the size the block had (a segment's writer relies on it).
   */
  #wideFrom: number;
  readonly #double: boolean;

  constructor(double: boolean) {
    this.#double = double;
    this.#wideFrom = double ? 0 : Infinity;
  }

  add(n: number, v: number): void {
    if (n === this.values.length) this.values = grow(this.values);
    this.values[n] = v;
    if ((v | 0) !== v && n < this.#wideFrom) this.#wideFrom = n;
  }

  size(n: number): number {
    return 1 + n * (n > this.#wideFrom ? 8 : 4);
  }

  truncate(n: number): void {
    if (!this.#double && this.#wideFrom >= n) this.#wideFrom = Infinity;
  }

  writeTo(out: DataOutput, n: number): void {
    const values = this.values;
    const view = out.view;
    const wide = n > this.#wideFrom;
    let p = out.pos;
    out.buf[p++] = wide ? 8 : 4;
    if (wide) for (let i = 0; i < n; i++, p += 8) view.setFloat64(p, values[i]!, true);
    else for (let i = 0; i < n; i++, p += 4) view.setInt32(p, values[i]!, true);
    out.pos = p;
    this.truncate(0);
  }
}

/** boolean fields: a byte each. */
export class BooleanColumn implements BlockColumn {
  values = new Uint8Array(512);

  add(n: number, v: boolean): void {
    if (n === this.values.length) this.values = grow(this.values);
    this.values[n] = v ? 1 : 0;
  }

  size(n: number): number {
    return n;
  }

  truncate(): void {}

  writeTo(out: DataOutput, n: number): void {
    out.buf.set(this.values.subarray(0, n), out.pos);
    out.pos += n;
  }
}

/**
 * string fields: a width byte (1, 2 or 4: the widest length's), u32 LE total bytes, every
 * record's byte length at that width, then all the UTF-8 bytes back to back. The reader finds
 * each string by adding lengths, and decodes it with the same short-string cache as a row's.
 */
export class StringColumn implements BlockColumn {
  /** Where each record's bytes end in `bytes`. */
  ends = new Uint32Array(512);
  readonly bytes = DataOutput.growable(16 * 1024);
  /** The first records whose length needs 2 and 4 bytes: exact, as NumberColumn's. */
  #width2From = Infinity;
  #width4From = Infinity;

  add(n: number, s: string): void {
    const bytes = this.bytes;
    const start = bytes.pos;
    bytes.writeUtf8(s);
    if (n === this.ends.length) this.ends = grow(this.ends);
    this.ends[n] = bytes.pos;
    if (bytes.pos - start > 0xff) this.#long(n, bytes.pos - start);
  }

  #long(n: number, length: number): void {
    if (n < this.#width2From) this.#width2From = n;
    if (length > 0xffff && n < this.#width4From) this.#width4From = n;
  }

  size(n: number): number {
    return 5 + n * this.#width(n) + (n === 0 ? 0 : this.ends[n - 1]!);
  }

  truncate(n: number): void {
    this.bytes.pos = n === 0 ? 0 : this.ends[n - 1]!;
    if (this.#width2From >= n) this.#width2From = Infinity;
    if (this.#width4From >= n) this.#width4From = Infinity;
  }

  #width(n: number): 1 | 2 | 4 {
    return n > this.#width4From ? 4 : n > this.#width2From ? 2 : 1;
  }

  writeTo(out: DataOutput, n: number): void {
    const width = this.#width(n);
    const ends = this.ends;
    const total = n === 0 ? 0 : ends[n - 1]!;
    const view = out.view;
    let p = out.pos;
    out.buf[p] = width;
    view.setUint32(p + 1, total, true);
    p += 5;
    let start = 0;
    for (let i = 0; i < n; i++) {
      const length = ends[i]! - start;
      start = ends[i]!;
      if (width === 1) out.buf[p] = length;
      else if (width === 2) view.setUint16(p, length, true);
      else view.setUint32(p, length, true);
      p += width;
    }
    out.buf.set(this.bytes.buf.subarray(0, total), p);
    out.pos = p + total;
    this.truncate(0);
  }
}

/**
 * Any other field (nested structs, arrays, maps, bytes, bigint, nullable, json, any): its values
 * as its own codec writes them, back to back (generated code writes to `out`), after a u32 LE
 * byte count. Read back a value at a time, as within a row.
 */
export class RowColumn implements BlockColumn {
  readonly out = DataOutput.growable(16 * 1024);
  ends = new Uint32Array(512);

  /** The record's value has been written to `out`. */
  added(n: number): void {
    if (n === this.ends.length) this.ends = grow(this.ends);
    this.ends[n] = this.out.pos;
  }

  size(n: number): number {
    return 4 + (n === 0 ? 0 : this.ends[n - 1]!);
  }

  truncate(n: number): void {
    this.out.pos = n === 0 ? 0 : this.ends[n - 1]!;
  }

  writeTo(out: DataOutput, n: number): void {
    const total = n === 0 ? 0 : this.ends[n - 1]!;
    out.view.setUint32(out.pos, total, true);
    out.buf.set(this.out.buf.subarray(0, total), out.pos + 4);
    out.pos += 4 + total;
    this.truncate(0);
  }
}

function grow<A extends Float64Array | Uint32Array | Uint8Array>(a: A): A {
  const next = new (a.constructor as new (n: number) => A)(a.length * 2);
  next.set(a);
  return next;
}
