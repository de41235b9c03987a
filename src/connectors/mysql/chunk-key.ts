/**
 * Values of a chunk key column, compared the way the server orders them. Only kinds whose order
 * JavaScript can reproduce exactly are accepted: integers (number or bigint), DECIMAL (exact
 * strings), DATE/DATETIME strings (fixed width), and strings under a binary collation.
 */
export type ChunkKeyKind = 'integer' | 'decimal' | 'temporal' | 'binary-string';

/** Unbounded ends are null: the first chunk has no start, the last no end. */
export type ChunkBound = number | bigint | string | null;

export class UnsupportedChunkKeyError extends Error {
  /** A table's definition, not a passing condition: restarting cannot help. */
  readonly unrecoverable = true;
  readonly table: string;
  readonly column: string;
  readonly columnType: string;
  constructor(table: string, column: string, columnType: string, why: string) {
    super(
      `table ${table}: cannot split it into chunks by column '${column}' (${columnType}): ${why}. ` +
        `Choose another chunk key with the source's chunkKeyColumn option (an integer, DECIMAL, DATE/DATETIME or binary-collated column of the primary key).`,
    );
    this.name = 'UnsupportedChunkKeyError';
    this.table = table;
    this.column = column;
    this.columnType = columnType;
  }
}

const INTEGER = new Set(['tinyint', 'smallint', 'mediumint', 'int', 'integer', 'bigint']);

export function chunkKeyKind(table: string, column: string, dataType: string, columnType: string, collation: string | null): ChunkKeyKind {
  const t = dataType.toLowerCase();
  if (INTEGER.has(t)) return 'integer';
  if (t === 'decimal' || t === 'numeric') return 'decimal';
  if (t === 'date' || t === 'datetime') return 'temporal';
  if (t === 'binary' || t === 'varbinary') throw new UnsupportedChunkKeyError(table, column, columnType, 'binary keys are not supported yet');
  if (t === 'char' || t === 'varchar') {
    if (collation && /_bin$/.test(collation)) return 'binary-string';
    throw new UnsupportedChunkKeyError(table, column, columnType, `its collation ${collation ?? '?'} orders strings differently from a byte comparison`);
  }
  throw new UnsupportedChunkKeyError(table, column, columnType, 'this type cannot be compared exactly outside the server');
}

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

/** The SQL placeholder for a key value: DECIMAL keys are cast so the server compares them exactly, not as doubles. */
export function keyPlaceholder(kind: ChunkKeyKind): string {
  return kind === 'decimal' ? 'CAST(? AS DECIMAL(65, 30))' : '?';
}
