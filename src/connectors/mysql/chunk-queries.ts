import type { CdcTable } from '../cdc/cdc-dialect.ts';
import type { SnapshotSplit } from '../cdc/cdc-split.ts';
import type { ChunkBoundaries } from '../cdc/chunk-splitter.ts';
import type { RowImage } from './change-record.ts';
import { keyPlaceholder, type ChunkBound } from './chunk-key.ts';
import { quoteName as q, type SqlClient } from './sql-client.ts';

/** The key queries the chunk splitter runs, in MySQL's SQL. */
export function chunkBoundaries(sql: SqlClient): ChunkBoundaries {
  return {
    async keyRange(t: CdcTable) {
      const [range] = await sql.query<{ lo: ChunkBound; hi: ChunkBound }>(`SELECT MIN(${q(t.keyColumn)}) AS lo, MAX(${q(t.keyColumn)}) AS hi FROM ${q(t.db)}.${q(t.table)}`);
      const [stats] = await sql.query<{ TABLE_ROWS: number | bigint | null }>('SELECT TABLE_ROWS FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?', [t.db, t.table]);
      return { min: range?.lo ?? null, max: range?.hi ?? null, approxRows: Number(stats?.TABLE_ROWS ?? 0) };
    },
    async keyAtOffset(t: CdcTable, from: ChunkBound, offset: number) {
      const k = q(t.keyColumn);
      const [row] = await sql.query<{ k: ChunkBound }>(`SELECT ${k} AS k FROM ${q(t.db)}.${q(t.table)} WHERE ${k} >= ${keyPlaceholder(t.keyKind)} ORDER BY ${k} LIMIT 1 OFFSET ${offset}`, [from]);
      return row ? row.k : null;
    },
    async keyAfter(t: CdcTable, from: ChunkBound) {
      const k = q(t.keyColumn);
      const [next] = await sql.query<{ k: ChunkBound }>(`SELECT MIN(${k}) AS k FROM ${q(t.db)}.${q(t.table)} WHERE ${k} > ${keyPlaceholder(t.keyKind)}`, [from]);
      return next?.k ?? null;
    },
  };
}

/** The rows of a chunk's key range [start, end). */
export async function selectChunk(sql: SqlClient, split: SnapshotSplit): Promise<RowImage[]> {
  const k = q(split.keyColumn);
  const p = keyPlaceholder(split.keyKind);
  const where: string[] = [];
  const params: unknown[] = [];
  if (split.start !== null) {
    where.push(`${k} >= ${p}`);
    params.push(split.start);
  }
  if (split.end !== null) {
    where.push(`${k} < ${p}`);
    params.push(split.end);
  }
  const filter = where.length > 0 ? ` WHERE ${where.join(' AND ')}` : '';
  return sql.query<RowImage>(`SELECT * FROM ${q(split.db)}.${q(split.table)}${filter}`, params);
}
