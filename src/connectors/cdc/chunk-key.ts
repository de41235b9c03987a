/**
 * Values of a chunk key column, compared the way the server orders them. Only kinds whose order
 * JavaScript can reproduce exactly exist: integers (number, bigint or a decimal string), exact
 * decimals (strings), fixed-width temporal strings, and strings ordered byte by byte (binary
 * collations, C collation, lower-case UUID text). A dialect maps its column types onto these and
 * refuses the others.
 */
export type ChunkKeyKind = 'integer' | 'decimal' | 'temporal' | 'binary-string';

/** Unbounded ends are null: the first chunk has no start, the last no end. */
export type ChunkBound = number | bigint | string | null;

/** Negative, zero or positive as a < b, a = b, a > b in the server's order. */
export function compareChunkKeys(kind: ChunkKeyKind, a: unknown, b: unknown): number {
  switch (kind) {
    case 'integer': {
      const x = typeof a === 'string' ? BigInt(a) : (a as number | bigint);
      const y = typeof b === 'string' ? BigInt(b) : (b as number | bigint);
      return x < y ? -1 : x > y ? 1 : 0;
    }
    case 'decimal':
      return compareDecimals(String(a), String(b));
    case 'temporal':
    case 'binary-string':
      return Buffer.compare(Buffer.from(String(a)), Buffer.from(String(b)));
  }
}

/** Whether key lies in [start, end), null ends being unbounded. */
export function inChunk(kind: ChunkKeyKind, key: unknown, start: ChunkBound, end: ChunkBound): boolean {
  if (key === null || key === undefined) return start === null;
  if (start !== null && compareChunkKeys(kind, key, start) < 0) return false;
  return end === null || compareChunkKeys(kind, key, end) < 0;
}

function compareDecimals(a: string, b: string): number {
  const [ai, af = ''] = a.split('.');
  const [bi, bf = ''] = b.split('.');
  const scale = Math.max(af.length, bf.length);
  // "-0.5" becomes BigInt("-05"): the sign of the integer part carries over to the whole number.
  const x = BigInt(ai! + af.padEnd(scale, '0'));
  const y = BigInt(bi! + bf.padEnd(scale, '0'));
  return x < y ? -1 : x > y ? 1 : 0;
}
