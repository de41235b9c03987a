import type { ChunkKeyKind } from '../cdc/chunk-key.ts';

export { compareChunkKeys, inChunk, type ChunkBound, type ChunkKeyKind } from '../cdc/chunk-key.ts';

/** A chunk key column whose MySQL type the CDC core cannot order exactly, named. */
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

/** The chunk key kind of a MySQL column: integers, DECIMAL, DATE/DATETIME and binary-collated strings. */
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

/** The SQL placeholder for a key value: DECIMAL keys are cast so the server compares them exactly, not as doubles. */
export function keyPlaceholder(kind: ChunkKeyKind): string {
  return kind === 'decimal' ? 'CAST(? AS DECIMAL(65, 30))' : '?';
}
