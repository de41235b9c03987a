import type { CdcReaderSession } from './cdc-dialect.ts';
import type { SnapshotSplit } from './cdc-split.ts';
import type { CdcRecordSource, RowImage } from './change-record.ts';
import { inChunk } from './chunk-key.ts';

export interface ChunkReadDeps<P> {
  readonly session: Pick<CdcReaderSession<P, CdcRecordSource>, 'currentPosition' | 'rowIdentity' | 'selectChunk' | 'openLog'>;
  readonly comparePositions: (a: P, b: P) => number;
  /** As the dialect names its log in messages ('the binlog'). */
  readonly logName: string;
  /** A LOW watermark already known (the previous chunk's HIGH on this connection): any position before the SELECT will do. */
  readonly low?: P;
}

/** A chunk of a table without a primary key kept changing while it was read. */
export class ChunkNotStableError extends Error {
  readonly table: string;
  readonly chunk: string;
  constructor(split: SnapshotSplit, attempts: number, logName: string) {
    super(
      `table ${split.db}.${split.table} has no primary key, and chunk ${split.index + 1} (${split.keyColumn} in [${String(split.start ?? '-inf')}, ${String(split.end ?? '+inf')})) ` +
        `changed during each of ${attempts} reads: without a key its rows cannot be matched with ${logName}'s changes. Give the table a primary key, or use a smaller chunk size.`,
    );
    this.name = 'ChunkNotStableError';
    this.table = `${split.db}.${split.table}`;
    this.chunk = split.id;
  }
}

const UNSTABLE_RETRIES = 5;

export interface ChunkResult<P> {
  readonly rows: RowImage[];
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
  let low = deps.low ?? (await s.currentPosition());
  for (let attempt = 1; ; attempt++) {
    const rows = await s.selectChunk(split);
    const high = await s.currentPosition();
    const readAt = Date.now();
    if (deps.comparePositions(low, high) === 0) return { rows, high, merged: 0, readAt };
    if (identity.length > 0) return { ...(await merge(deps, split, identity, rows, low, high)), high, readAt };
    // Without a key, a change cannot be matched with the row it changed; a read during which the
    // range did not change is exact as it is.
    const changes = await replay(deps, split, low, high, () => {});
    if (changes === 0) return { rows, high, merged: 0, readAt };
    if (attempt >= UNSTABLE_RETRIES) throw new ChunkNotStableError(split, attempt, deps.logName);
    low = high;
  }
}

async function merge<P>(deps: ChunkReadDeps<P>, split: SnapshotSplit, identity: readonly string[], rows: RowImage[], low: P, high: P): Promise<{ rows: RowImage[]; merged: number }> {
  const byId = new Map<string, RowImage>();
  for (const r of rows) byId.set(rowId(r, identity), r);
  const merged = await replay(deps, split, low, high, (before, after) => {
    if (before && inChunk(split.keyKind, before[split.keyColumn], split.start, split.end)) byId.delete(rowId(before, identity));
    if (after && inChunk(split.keyKind, after[split.keyColumn], split.start, split.end)) byId.set(rowId(after, identity), after);
  });
  return { rows: [...byId.values()], merged };
}

/** Applies the table's row changes in (low, high] and returns how many there were. */
async function replay<P>(deps: ChunkReadDeps<P>, split: SnapshotSplit, low: P, high: P, apply: (before: RowImage | null, after: RowImage | null) => void): Promise<number> {
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
          apply(r.before, r.after);
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
