import type { BinlogClient } from './binlog-client.ts';
import { compareBinlogPositions } from './binlog-position.ts';
import type { LogPosition, SnapshotSplit } from './cdc-split.ts';
import type { RowImage } from './change-record.ts';
import { inChunk, keyPlaceholder } from './chunk-key.ts';
import { quoteName as q, type SqlClient } from './sql-client.ts';

export interface ChunkReadDeps {
  readonly sql: SqlClient;
  readonly currentPosition: () => Promise<LogPosition>;
  readonly openBinlog: (start: LogPosition, include: (db: string, table: string) => boolean) => Promise<BinlogClient>;
  /** The primary key's columns; empty for a table without one. */
  readonly identity: (split: SnapshotSplit) => Promise<readonly string[]>;
  /** A LOW watermark already known (the previous chunk's HIGH on this connection): any position before the SELECT will do. */
  readonly low?: LogPosition;
}

/** A chunk of a table without a primary key kept changing while it was read. */
export class ChunkNotStableError extends Error {
  readonly table: string;
  readonly chunk: string;
  constructor(split: SnapshotSplit, attempts: number) {
    super(
      `table ${split.db}.${split.table} has no primary key, and chunk ${split.index + 1} (${split.keyColumn} in [${String(split.start ?? '-inf')}, ${String(split.end ?? '+inf')})) ` +
        `changed during each of ${attempts} reads: without a key its rows cannot be matched with the binlog's changes. Give the table a primary key, or use a smaller chunk size.`,
    );
    this.name = 'ChunkNotStableError';
    this.table = `${split.db}.${split.table}`;
    this.chunk = split.id;
  }
}

const UNSTABLE_RETRIES = 5;

export interface ChunkResult {
  readonly rows: RowImage[];
  readonly high: LogPosition;
  /** Binlog row changes of the chunk's key range between LOW and HIGH, merged into the rows. */
  readonly merged: number;
  readonly readAt: number;
}

/**
 * DBLog's lock-free chunk read: LOW = binlog position, SELECT the chunk, HIGH = binlog position,
 * then replay the chunk's changes between LOW and HIGH onto the rows read. The SELECT saw the
 * table at some moment between LOW and HIGH; replaying every change of the range in (LOW, HIGH]
 * onto it (upserts and deletes are idempotent with full row images) gives the range as of HIGH.
 */
export async function readChunk(deps: ChunkReadDeps, split: SnapshotSplit): Promise<ChunkResult> {
  const identity = await deps.identity(split);
  let low = deps.low ?? (await deps.currentPosition());
  for (let attempt = 1; ; attempt++) {
    const rows = await selectChunk(deps.sql, split);
    const high = await deps.currentPosition();
    const readAt = Date.now();
    if (compareBinlogPositions(low, high) === 0) return { rows, high, merged: 0, readAt };
    if (identity.length > 0) return { ...(await merge(deps, split, identity, rows, low, high)), high, readAt };
    // Without a key, a change cannot be matched with the row it changed; a read during which the
    // range did not change is exact as it is.
    const changes = await replay(deps, split, low, high, () => {});
    if (changes === 0) return { rows, high, merged: 0, readAt };
    if (attempt >= UNSTABLE_RETRIES) throw new ChunkNotStableError(split, attempt);
    low = high;
  }
}

async function merge(
  deps: ChunkReadDeps,
  split: SnapshotSplit,
  identity: readonly string[],
  rows: RowImage[],
  low: LogPosition,
  high: LogPosition,
): Promise<{ rows: RowImage[]; merged: number }> {
  const byId = new Map<string, RowImage>();
  for (const r of rows) byId.set(rowId(r, identity), r);
  const merged = await replay(deps, split, low, high, (before, after) => {
    if (before && inChunk(split.keyKind, before[split.keyColumn], split.start, split.end)) byId.delete(rowId(before, identity));
    if (after && inChunk(split.keyKind, after[split.keyColumn], split.start, split.end)) byId.set(rowId(after, identity), after);
  });
  return { rows: [...byId.values()], merged };
}

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

/** Applies the table's row changes in (low, high] and returns how many there were. */
async function replay(
  deps: ChunkReadDeps,
  split: SnapshotSplit,
  low: LogPosition,
  high: LogPosition,
  apply: (before: RowImage | null, after: RowImage | null) => void,
): Promise<number> {
  const client = await deps.openBinlog(low, (db, table) => db === split.db && table === split.table);
  let changes = 0;
  try {
    // The client's position also moves past other tables' transactions, which it skips undecoded.
    while (compareBinlogPositions(client.position, high) < 0) {
      const ev = client.next();
      if (!ev) {
        await client.available();
        continue;
      }
      if (ev.type === 'rows' && ev.db === split.db && ev.table === split.table) {
        for (const r of ev.rows) {
          const before = r.before as RowImage | null;
          const after = r.after as RowImage | null;
          const inRange = (image: RowImage | null) => image !== null && inChunk(split.keyKind, image[split.keyColumn], split.start, split.end);
          if (!inRange(before) && !inRange(after)) continue;
          apply(before, after);
          changes++;
        }
      }
    }
    return changes;
  } finally {
    await client.close();
  }
}

/** A row's identity as one string (bigints and bytes included). */
export function rowId(row: RowImage, columns: readonly string[]): string {
  let id = '';
  for (const c of columns) {
    const v = row[c];
    id += (typeof v === 'bigint' ? `${v}n` : Buffer.isBuffer(v) ? v.toString('hex') : String(v)) + '\u0000';
  }
  return id;
}
