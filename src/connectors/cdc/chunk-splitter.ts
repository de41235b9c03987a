import type { CdcCatalog, CdcTable } from './cdc-dialect.ts';
import type { SnapshotSplit } from './cdc-split.ts';
import { compareChunkKeys, type ChunkBound, type ChunkKeyKind } from './chunk-key.ts';

/** How one table is cut into chunks, and how far the cutting has got (part of the enumerator's state). */
export interface TablePlan {
  readonly db: string;
  readonly table: string;
  readonly keyColumn: string;
  readonly keyKind: ChunkKeyKind;
  readonly approxRows: number;
  readonly min: ChunkBound;
  readonly max: ChunkBound;
  /** Evenly spread integer keys: the key step per chunk (a decimal string); null: boundaries are queried. */
  readonly step: string | null;
  /** Start of the next chunk to cut (the first chunk starts unbounded). */
  readonly nextStart: ChunkBound;
  readonly nextIndex: number;
  readonly done: boolean;
}

export interface ChunkingOptions {
  /** Rows per chunk (Flink CDC scan.incremental.snapshot.chunk.size). */
  readonly chunkSize: number;
  /** Keys spread evenly enough ((max - min + 1) / rows within these bounds) are split by arithmetic, not queries. */
  readonly distributionFactorUpper: number;
  readonly distributionFactorLower: number;
}

/** What cutting needs from the database: a catalog's key queries. */
export type ChunkBoundaries = Pick<CdcCatalog<unknown>, 'keyRange' | 'keyAtOffset' | 'keyAfter'>;

/** A table the source cannot snapshot as configured, named. */
export class TableNotSplittableError extends Error {
  /** A table's definition, not a passing condition: restarting cannot help. */
  readonly unrecoverable = true;
  readonly table: string;
  constructor(table: string, why: string) {
    super(`table ${table}: ${why}`);
    this.name = 'TableNotSplittableError';
    this.table = table;
  }
}

/** Looks at a table once: its key range and size decide between arithmetic and queried boundaries. */
export async function planTable(db: ChunkBoundaries, t: CdcTable, o: ChunkingOptions): Promise<TablePlan> {
  const { min, max, approxRows } = await db.keyRange(t);
  return { db: t.db, table: t.table, keyColumn: t.keyColumn, keyKind: t.keyKind, approxRows, min, max, step: evenStep(t.keyKind, min, max, approxRows, o), nextStart: null, nextIndex: 0, done: false };
}

/**
 * Flink CDC's rule: integer keys whose range is within [lower, upper] times the row count are cut
 * by arithmetic (no query per chunk); others by querying the key that ends each chunk.
 */
function evenStep(kind: ChunkKeyKind, min: ChunkBound, max: ChunkBound, rows: number, o: ChunkingOptions): string | null {
  if (kind !== 'integer' || min === null || max === null || rows <= 0) return null;
  const span = BigInt(max) - BigInt(min) + 1n;
  const factor = Number(span) / rows;
  if (factor < o.distributionFactorLower || factor > o.distributionFactorUpper) return null;
  const step = BigInt(Math.max(1, Math.ceil(o.chunkSize * factor)));
  return step.toString();
}

/** Rough number of chunks for progress; exact once the table is cut. */
export function estimatedChunks(plan: TablePlan, chunkSize: number): number {
  if (plan.done) return plan.nextIndex;
  if (plan.step !== null && plan.min !== null && plan.max !== null) {
    return Number((BigInt(plan.max) - BigInt(plan.min)) / BigInt(plan.step)) + 1;
  }
  return Math.max(plan.nextIndex + 1, Math.ceil(plan.approxRows / chunkSize));
}

/** The next chunk of a table and the plan after it; null when the table is fully cut. */
export async function nextChunk(db: ChunkBoundaries, plan: TablePlan, chunkSize: number): Promise<{ split: SnapshotSplit; plan: TablePlan } | null> {
  if (plan.done) return null;
  const start = plan.nextIndex === 0 ? null : plan.nextStart;
  let end: ChunkBound;
  if (plan.min === null) end = null; // empty when planned: one unbounded chunk catches whatever is there now
  else if (plan.step !== null) end = evenEnd(plan, start);
  else end = await queriedEnd(db, plan, start ?? plan.min, chunkSize);
  const split: SnapshotSplit = {
    kind: 'snapshot',
    id: `${plan.db}.${plan.table}#${plan.nextIndex}`,
    db: plan.db,
    table: plan.table,
    keyColumn: plan.keyColumn,
    keyKind: plan.keyKind,
    index: plan.nextIndex,
    start,
    end,
  };
  return { split, plan: { ...plan, nextStart: end, nextIndex: plan.nextIndex + 1, done: end === null } };
}

function evenEnd(plan: TablePlan, start: ChunkBound): ChunkBound {
  const base = BigInt(start ?? plan.min!);
  const end = base + BigInt(plan.step!);
  if (end > BigInt(plan.max!)) return null;
  // Keep the key's own JS type: INT columns are numbers, BIGINT columns bigints.
  return typeof plan.min === 'bigint' ? end : Number(end);
}

/** The key chunkSize rows after `from`: the exclusive end of this chunk; null if fewer rows are left. */
async function queriedEnd(db: ChunkBoundaries, plan: TablePlan, from: ChunkBound, chunkSize: number): Promise<ChunkBound> {
  const end = await db.keyAtOffset(plan, from, chunkSize);
  if (end === null) return null;
  if (compareChunkKeys(plan.keyKind, end, from) > 0) return end;
  // More than chunkSize rows share the key `from` (a non-unique chunk key): the chunk takes them all.
  return db.keyAfter(plan, from);
}
