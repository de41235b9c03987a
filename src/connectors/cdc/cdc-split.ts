import type { ChunkBound, ChunkKeyKind } from './chunk-key.ts';
import type { TablePlan } from './chunk-splitter.ts';
import type { CdcTableSchema } from './schema-change.ts';

/**
 * The CDC source's splits, generic over the dialect's log position P. They are checkpointed (the
 * readers' state) and sent between enumerator and readers; field names are part of the state
 * format. `db` is the table's namespace (MySQL database, PostgreSQL schema).
 */

/** One chunk of one table's snapshot: the rows whose chunk key lies in [start, end). */
export interface SnapshotSplit {
  readonly kind: 'snapshot';
  readonly id: string;
  readonly db: string;
  readonly table: string;
  readonly keyColumn: string;
  readonly keyKind: ChunkKeyKind;
  readonly index: number;
  readonly start: ChunkBound;
  readonly end: ChunkBound;
}

/** A chunk that was read and emitted: it holds every change of its key range up to `high`. */
export interface FinishedChunk<P> {
  readonly id: string;
  readonly db: string;
  readonly table: string;
  readonly index: number;
  readonly start: ChunkBound;
  readonly end: ChunkBound;
  readonly high: P;
  readonly rows: number;
}

/** Per table: its key kind and chunk key, and its finished chunks in key order. */
export interface FinishedTable<P> {
  readonly db: string;
  readonly table: string;
  readonly keyColumn: string;
  readonly keyKind: ChunkKeyKind;
  readonly chunks: ReadonlyArray<Pick<FinishedChunk<P>, 'start' | 'end' | 'high'>>;
}

/**
 * Following the change log. `start` is a transaction boundary; the first `skipEvents` rows events
 * of the transaction there were emitted before the checkpoint. Until the log passes `maxHigh`,
 * an event is dropped when the finished chunk of its key already holds it (position <= HIGH).
 *
 * Its kind and id are 'binlog' for every dialect: the name it had when MySQL was the only one,
 * kept so that checkpoints taken then restore.
 */
export interface LogSplit<P> {
  readonly kind: 'binlog';
  readonly id: 'binlog';
  readonly start: P;
  readonly skipEvents: number;
  readonly tables: ReadonlyArray<FinishedTable<P>>;
  readonly maxHigh: P | null;
  /** Startup mode timestamp: events committed before this (ms) are skipped. */
  readonly fromTimestamp?: number;
  /** The captured tables' schemas at `start` (absent in checkpoints from before schema tracking). */
  readonly schemas?: ReadonlyArray<CdcTableSchema>;
  /**
   * Tables (`db.table`) whose schema in `schemas` is the catalog's as the log phase began, not yet
   * confirmed by a row at `start` or later: the log may start before an ALTER made while the
   * snapshot ran. Absent (a log split the enumerator made, or an older checkpoint): every one.
   */
  readonly unconfirmedSchemas?: readonly string[];
  /**
   * The tables ('db.table') the source has a snapshot of or is snapshotting (scanNewlyAddedTables):
   * a matching table not among them is new and snapshotted while the log is followed. Absent in
   * checkpoints from before it and for sources that start without a snapshot.
   */
  readonly captured?: readonly string[];
  /** Tables being snapshotted in the log phase, in the order found; their finished chunks are in `tables`. */
  readonly adding?: ReadonlyArray<AddingTable>;
}

/** A table found while the log is followed: its cutting progress once planned (null before). */
export interface AddingTable {
  readonly db: string;
  readonly table: string;
  readonly plan: TablePlan | null;
}

/** A reader's report that a chunk is done, kept in its state until the enumerator has it. */
export interface FinishedReport<P> {
  readonly kind: 'finished';
  readonly id: string;
  readonly chunk: FinishedChunk<P>;
}

export type CdcSplit<P> = SnapshotSplit | LogSplit<P> | FinishedReport<P>;

/** Reader -> enumerator: these chunks are done. Enumerator -> reader: acknowledged (in its state now). */
export type CdcSourceEvent<P> =
  | { readonly kind: 'chunks-finished'; readonly chunks: FinishedChunk<P>[] }
  | { readonly kind: 'chunks-acknowledged'; readonly ids: string[] }
  /** Every chunk of the snapshot is finished: no reader reads one again, unless a table is added later. */
  | { readonly kind: 'snapshot-finished' };
