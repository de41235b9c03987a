import type { ChunkKeyKind } from '../cdc/chunk-key.ts';

/** A chunk key whose order this source cannot reproduce outside the server. */
export class PgUnsupportedChunkKeyError extends Error {
  readonly unrecoverable = true;
  readonly table: string;
  readonly column: string;
  readonly columnType: string;
  constructor(table: string, column: string, columnType: string, why: string) {
    super(
      `table ${table}: cannot split it into chunks by column '${column}' (${columnType}): ${why}. ` +
        `Choose another chunk key with the source's chunkKeyColumn option (an integer, numeric, date, timestamp, uuid or C-collated text column of the primary key).`,
    );
    this.name = 'PgUnsupportedChunkKeyError';
    this.table = table;
    this.column = column;
    this.columnType = columnType;
  }
}

/**
 * How a key column's values compare in JS exactly as the server orders them: integers, numeric
 * (exact strings), date and timestamp (ISO text, fixed width up to the fraction), uuid (lower-case
 * hex text orders as its bytes), and text under the C collation (byte order).
 */
export function pgChunkKeyKind(table: string, column: string, typeName: string, collation: string | null): ChunkKeyKind {
  switch (typeName) {
    case 'int2':
    case 'int4':
    case 'int8':
      return 'integer';
    case 'numeric':
      return 'decimal';
    case 'date':
    case 'timestamp':
      return 'temporal';
    case 'uuid':
      return 'binary-string';
    case 'text':
    case 'varchar':
      if (collation === 'C' || collation === 'POSIX') return 'binary-string';
      throw new PgUnsupportedChunkKeyError(table, column, typeName, `its collation ${collation ?? '(database default)'} orders strings differently from a byte comparison`);
    default:
      throw new PgUnsupportedChunkKeyError(table, column, typeName, 'this type cannot be compared exactly outside the server');
  }
}
