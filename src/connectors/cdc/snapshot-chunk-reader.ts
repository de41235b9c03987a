import type { CdcReaderSession, ChunkRows } from './cdc-dialect.ts';

export type { ChunkRows } from './cdc-dialect.ts';
import type { SnapshotSplit } from './cdc-split.ts';
import type { CdcRecordSource, RowImage } from './change-record.ts';
import { inChunk } from './chunk-key.ts';

export interface ChunkReadDeps<P> {
  readonly session: Pick<CdcReaderSession<P, CdcRecordSource>, 'currentPosition' | 'rowIdentity' | 'selectChunk' | 'selectChunkRows' | 'openLog' | 'selectedAt' | 'selectedUntil'>;
  readonly comparePositions: (a: P, b: P) => number;
  /** As the dialect names its log in messages ('the binlog'). */
  readonly logName: string;
  /** A LOW watermark already known (the previous chunk's HIGH on this connection): any position before the SELECT will do. */
  readonly low?: P;
}

/**
 * A chunk kept changing while it was read, each time so that its changes could not be merged:
 * a table without a primary key ('no-key'), or updates that left columns out (unchanged TOASTed
 * values) of rows the chunk did not hold ('incomplete').
 */
export class ChunkNotStableError extends Error {
  readonly table: string;
  readonly chunk: string;
  constructor(split: SnapshotSplit, attempts: number, logName: string, why: 'no-key' | 'incomplete' = 'no-key') {
    const range = `chunk ${split.index + 1} (${split.keyColumn} in [${String(split.start ?? '-inf')}, ${String(split.end ?? '+inf')}))`;
    super(
      why === 'no-key'
        ? `table ${split.db}.${split.table} has no primary key, and ${range} ` +
            `changed during each of ${attempts} reads: without a key its rows cannot be matched with ${logName}'s changes. Give the table a primary key, or use a smaller chunk size.`
        : `table ${split.db}.${split.table}: during each of ${attempts} reads of ${range}, ${logName} had an update that left unchanged columns out of a row the chunk did not hold ` +
            `(a key moved into the chunk), so the row could not be completed. Give the table REPLICA IDENTITY FULL (its updates then carry every column), or use a smaller chunk size.`,
    );
    this.name = 'ChunkNotStableError';
    this.table = `${split.db}.${split.table}`;
    this.chunk = split.id;
  }
}

const UNSTABLE_RETRIES = 5;

export interface ChunkResult<P> {
  readonly rows: ChunkRows;
  readonly high: P;
  /** Log row changes of the chunk's key range between LOW and HIGH, merged into the rows. */
  readonly merged: number;
  readonly readAt: number;
}

/**
 * DBLog's lock-free chunk read: LOW = log position, SELECT the chunk, HIGH = log position, then
 * replay the chunk's changes between LOW and HIGH onto the rows read. The SELECT saw the table at
 * some moment between LOW and HIGH; replaying every change of the range in (LOW, HIGH] onto it
 * (upserts and deletes are idempotent with full row images) gives the range as of HIGH.
 */
export async function readChunk<P>(deps: ChunkReadDeps<P>, split: SnapshotSplit): Promise<ChunkResult<P>> {
  const s = deps.session;
  const identity = await s.rowIdentity(split.db, split.table);
  let low: P = deps.low ?? (await s.currentPosition());
  for (let attempt = 1; ; attempt++) {
    const rows: ChunkRows = s.selectChunkRows ? await s.selectChunkRows(split) : await s.selectChunk(split);
    const at = s.selectedAt?.();
    if (at !== undefined && deps.comparePositions(at, low) < 0) low = at;
    const high = s.selectedUntil?.() ?? (await s.currentPosition());
    const readAt = Date.now();
    if (deps.comparePositions(low, high) === 0) return { rows, high, merged: 0, readAt };
    if (identity.length > 0) {
      const m = await merge(deps, split, identity, materialize(rows), low, high);
      if (m) return { ...m, high, readAt };
      if (attempt >= UNSTABLE_RETRIES) throw new ChunkNotStableError(split, attempt, deps.logName, 'incomplete');
    } else {
      // Without a key, a change cannot be matched with the row it changed; a read during which the
      // range did not change is exact as it is.
      const changes = await replay(deps, split, low, high, () => {});
      if (changes === 0) return { rows, high, merged: 0, readAt };
      if (attempt >= UNSTABLE_RETRIES) throw new ChunkNotStableError(split, attempt, deps.logName, 'no-key');
    }
    low = high;
  }
}

/**
 * The rows with the changes in (low, high] applied; null when an update left a column out of its
 * after image (PostgreSQL's unchanged TOASTed values) and the row it replaces is not at hand to
 * take the value from: the chunk is then read again.
 */
async function merge<P>(deps: ChunkReadDeps<P>, split: SnapshotSplit, identity: readonly string[], rows: RowImage[], low: P, high: P): Promise<{ rows: RowImage[]; merged: number } | null> {
  const byId = new Map<string, RowImage>();
  for (const r of rows) byId.set(rowId(r, identity), r);
  let incomplete = false;
  const merged = await replay(deps, split, low, high, (before, after, unchanged) => {
    const replaced = before ? byId.get(rowId(before, identity)) : undefined;
    if (before && inChunk(split.keyKind, before[split.keyColumn], split.start, split.end)) byId.delete(rowId(before, identity));
    if (!after || !inChunk(split.keyKind, after[split.keyColumn], split.start, split.end)) return;
    const id = rowId(after, identity);
    if (unchanged && unchanged.length > 0) {
      // The values the update did not change are those of the row it replaces: as the SELECT saw
      // it (then any later change of them is replayed after this one), or as replayed so far.
      const from = replaced ?? byId.get(id);
      if (!from || unchanged.some((c) => !(c in from))) incomplete = true;
      else after = { ...after, ...Object.fromEntries(unchanged.map((c) => [c, from[c]])) };
    }
    byId.set(id, after);
  });
  return incomplete ? null : { rows: [...byId.values()], merged };
}

function materialize(rows: ChunkRows): RowImage[] {
  return Array.isArray(rows) ? (rows as RowImage[]) : Array.from({ length: rows.length }, (_, i) => rows.at(i)!);
}

/** Applies the table's row changes in (low, high] and returns how many there were. */
async function replay<P>(
  deps: ChunkReadDeps<P>,
  split: SnapshotSplit,
  low: P,
  high: P,
  apply: (before: RowImage | null, after: RowImage | null, unchanged: readonly string[] | undefined) => void,
): Promise<number> {
  const log = await deps.session.openLog(low, { db: split.db, table: split.table });
  let changes = 0;
  try {
    // The reader's position also moves past other tables' transactions, which it skips undecoded.
    while (deps.comparePositions(log.position, high) < 0) {
      const ev = log.next();
      if (!ev) {
        await log.available();
        continue;
      }
      if (ev.type === 'rows' && ev.db === split.db && ev.table === split.table) {
        for (const r of ev.rows) {
          const inRange = (image: RowImage | null) => image !== null && inChunk(split.keyKind, image[split.keyColumn], split.start, split.end);
          if (!inRange(r.before) && !inRange(r.after)) continue;
          apply(r.before, r.after, r.unchangedColumns);
          changes++;
        }
      }
    }
    return changes;
  } finally {
    await log.close();
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
