import type { CdcRecordSource, RowImage } from './change-record.ts';
import type { ChunkBound, ChunkKeyKind } from './chunk-key.ts';
import type { SnapshotSplit } from './cdc-split.ts';
import type { ChunkingOptions } from './chunk-splitter.ts';
import type { CdcColumn, CdcSchemaEvent, CdcTableSchema } from './schema-change.ts';

/**
 * What the CDC core (chunked lock-free snapshot, LOW/HIGH merge, snapshot -> log hand-over,
 * checkpointed splits, progress) needs from one database. A dialect is the only place that knows
 * SQL text, the wire protocol, column types and the shape of log positions.
 *
 * `P` is a position in the database's change log (MySQL: binlog file + offset [+ GTID state];
 * PostgreSQL: an LSN). Positions are kept in checkpoints, so P must be plain data (strings,
 * numbers, bigints, plain objects) that survives the state serializer, and a position written by
 * one version of a dialect must stay readable by the next.
 *
 * `S` is the `source` of the dialect's change records (see change-record.ts).
 *
 * Table identity: `db` is the table's namespace (MySQL's database, PostgreSQL's schema) and
 * `table` its name; splits and chunk reports carry both, under these names, in checkpoints.
 *
 * A source on the core (see mysql/mysql-cdc-source.ts): `createEnumerator` returns
 * `new CdcSplitEnumerator(ctx, dialect, chunkingOptions, restored, snapshotsAtStart)`,
 * `createReader` returns `new CdcSourceReader(ctx, dialect)`, and
 * `defaultAlignedCheckpointTimeout` returns `cdcAlignedCheckpointTimeout(timeout)`.
 */
export interface CdcDialect<P, S extends CdcRecordSource> {
  /** How messages name the log ('the binlog', 'the WAL'). */
  readonly logName: string;
  /** Prefix of the readers' log metrics (`<prefix>_events`, `<prefix>_changes`, `<prefix>_lag_seconds`). */
  readonly logMetricPrefix: string;
  /**
   * Whether schema changes are records of the stream (`op: 'ddl'`) and rows carry their schema
   * version. Either way a change is followed and logged.
   */
  readonly includeSchemaChanges?: boolean;
  /**
   * Tables that come to match the source's patterns (created while the job runs, or matched by the
   * patterns of a resumed job) are snapshotted in chunks by the log's reader, then followed (Flink
   * CDC's scan.newly-added-table.enabled). Needs `chunking` and `captures`.
   */
  readonly scanNewlyAddedTables?: boolean;
  /** How added tables are cut (the enumerator's options). */
  readonly chunking?: ChunkingOptions;
  /** Whether the source's patterns capture table `db.table`. */
  captures?(db: string, table: string): boolean;

  /** Negative, zero or positive as a is before, at or after b; throws when they cannot be ordered. */
  comparePositions(a: P, b: P): number;
  /** A position for messages and logs. */
  formatPosition(p: P): string;

  /**
   * The enumerator's connection (one, on the JobMaster): opened at start, closed when the log split
   * is out. `readers`: the job's parallelism now (a dialect may clean up what readers of a run with
   * more of them left behind, e.g. PostgreSQL's backfill slots).
   */
  connectCatalog(readers: number): Promise<CdcCatalog<P>>;
  /**
   * One parallel reader's connection, for its whole life: chunk reads, watermarks and the log.
   * `subtask`/`parallelism` let a dialect give each reader its own replication identity.
   */
  connectReader(subtask: number, parallelism: number): Promise<CdcReaderSession<P, S>>;
}

/** A captured table as the enumerator plans it: its chunk key and the key's order. */
export interface CdcTable {
  readonly db: string;
  readonly table: string;
  /** The column the snapshot is cut by (the user's choice, else the primary key's first column). */
  readonly keyColumn: string;
  readonly keyKind: ChunkKeyKind;
}

/** Where the source begins, decided once at the first start from the user's startup mode. */
export type CdcStartup<P> =
  /** Snapshot every captured table, then follow the log from the lowest HIGH watermark. */
  | { readonly snapshot: true }
  /** No snapshot: follow the log from `start`, dropping changes committed before `fromTimestamp` (ms). */
  | { readonly snapshot: false; readonly start: P; readonly fromTimestamp?: number };

/** The enumerator's view of the database. */
export interface CdcCatalog<P> {
  /**
   * Refuses a server that cannot serve CDC, naming the setting, right or object to change;
   * `warn` takes what is worth a line in the job's log (e.g. a setting that limits recovery).
   */
  check(warn: (message: string) => void): Promise<void>;
  /** The startup mode resolved against the server (e.g. 'latest' becomes the current position). */
  startup(): Promise<CdcStartup<P>>;
  /** The captured tables in a stable order; an error naming the patterns when none matches. */
  listTables(): Promise<CdcTable[]>;
  /** The chunk key's range and an estimate of the rows (for even splitting and progress). */
  keyRange(table: CdcTable): Promise<{ readonly min: ChunkBound; readonly max: ChunkBound; readonly approxRows: number }>;
  /**
   * The key `offset` rows from the first key >= `from` in key order; null when fewer rows are
   * left. Used to cut chunks of unevenly spread keys.
   */
  keyAtOffset(table: CdcTable, from: ChunkBound, offset: number): Promise<ChunkBound>;
  /** The smallest key > `from`, null if none (a chunk key shared by more than a chunk's rows). */
  keyAfter(table: CdcTable, from: ChunkBound): Promise<ChunkBound>;
  /** The captured tables as they are now, none an empty list (for tables added later). */
  discoverTables?(): Promise<CdcTable[]>;
  /** Makes the server log an added table's changes for the source (PostgreSQL: adds it to the publication). */
  capture?(table: CdcTable): Promise<void>;
  close(): Promise<void>;
}

/**
 * A chunk's rows as the reader emits them: an array, or a list that decodes each row when asked
 * for it (CdcReaderSession.selectChunkRows).
 */
export interface ChunkRows {
  readonly length: number;
  at(index: number): RowImage | undefined;
}

/** A parallel reader's connection. */
export interface CdcReaderSession<P, S extends CdcRecordSource> {
  /**
   * The log's current end: a LOW or HIGH watermark. Any position at or after every change
   * committed before the call will do (it need not carry GTID-like state).
   */
  currentPosition(): Promise<P>;
  /** The columns that identify a row (the primary key); empty for a table without one. */
  rowIdentity(db: string, table: string): Promise<readonly string[]>;
  /** The rows of the chunk's key range [start, end), as the log's decoder would give them. */
  selectChunk(split: SnapshotSplit): Promise<RowImage[]>;
  /**
   * The same rows as selectChunk, in a list that may decode each row only when asked for it (the
   * chunk reader asks once per row, as it emits them, or for all of them to merge changes).
   */
  selectChunkRows?(split: SnapshotSplit): Promise<ChunkRows>;
  /**
   * Where the dialect knows it exactly: the log position of the last selectChunk's read view
   * (every transaction the log holds before it is in the rows, none after; MariaDB's consistent
   * snapshot). A server logs a transaction before its engine commits it, so a LOW read just
   * before the SELECT can be past a transaction the SELECT does not see yet; replaying from this
   * position instead loses none.
   */
  selectedAt?(): P | undefined;
  /**
   * Where the dialect reads it in the same round trip as the last selectChunk's rows: a position
   * at or after every change those rows hold, which serves as the chunk's HIGH watermark without
   * another round trip (currentPosition is called otherwise).
   */
  selectedUntil?(): P | undefined;
  /**
   * Reads the log from `from` (a position this dialect gave: a watermark, a `boundary` event's
   * `next`, a rows event's `txnStart`, or a startup position). With `backfill`, only that table's
   * rows are decoded and the reader is closed once it reaches a chunk's HIGH (soon); without, it
   * is the log phase over every captured table.
   */
  openLog(from: P, backfill?: { readonly db: string; readonly table: string }, schemas?: ReadonlyArray<CdcTableSchema>): Promise<CdcLogReader<P, S>>;
  /**
   * The captured tables' columns now, the schemas a log phase that starts now begins with (a
   * dialect whose log describes each table before its first row, as pgoutput does, need not).
   */
  describeTables?(): Promise<CdcTableSchema[]>;
  /**
   * No chunk read follows for now (no table added later is pending): the dialect may let go of
   * what its merges read (PostgreSQL drops the reader's backfill slot, which would hold WAL back).
   * The next chunk's currentPosition makes it again.
   */
  releaseChunkReads?(): Promise<void>;
  /** The `source` of a snapshot row read in a chunk whose HIGH watermark is `high`. */
  snapshotSource(split: SnapshotSplit, high: P, row: number, readAt: number): S;
  close(): Promise<void>;
}

/**
 * A stream of log events, buffered and bounded by the dialect; next() never blocks.
 * Rows events of one transaction share `txnStart`; after a `boundary` nothing of an open
 * transaction lies before `next`, so a reader may resume there.
 */
export interface CdcLogReader<P, S extends CdcRecordSource = CdcRecordSource> {
  /** The next buffered event, undefined when none is buffered (then await available()). */
  next(): CdcLogEvent<P, S> | undefined;
  /** Resolves when an event is buffered; rejects with the reader's failure. */
  available(): Promise<void>;
  /** How far the reader has read, skipped events included: a backfill stops once this reaches HIGH. */
  readonly position: P;
  /**
   * A checkpoint whose resume position is `position` completed: the dialect may let the server
   * forget the log before it (PostgreSQL: confirm the slot's LSN, a few checkpoints late).
   */
  checkpointComplete?(position: P): void;
  /** The dialect's own figures of the log phase, beside the reader's (e.g. PostgreSQL's `wal_slot_lag_bytes`). */
  metrics?(): Record<string, number>;
  /**
   * The columns the core tracks per table as of the events it has taken (a restore: the
   * checkpoint's): a dialect whose log does not describe its rows (MySQL without
   * binlog_row_metadata=FULL) decodes rows written before a later ALTER by them.
   */
  useTrackedColumns?(columnsOf: (db: string, table: string) => readonly CdcColumn[] | undefined): void;
  close(): Promise<void>;
}

export type CdcLogEvent<P, S extends CdcRecordSource = CdcRecordSource> = CdcRowsEvent<P, S> | CdcBoundaryEvent<P, S>;

/** Row changes of one table in one log event (one or more rows). */
export interface CdcRowsEvent<P, S extends CdcRecordSource = CdcRecordSource> {
  readonly type: 'rows';
  readonly op: 'c' | 'u' | 'd';
  readonly db: string;
  readonly table: string;
  /** `before` null for inserts, `after` null for deletes; `unchangedColumns` as in change-record.ts. */
  readonly rows: ReadonlyArray<{ readonly before: RowImage | null; readonly after: RowImage | null; readonly unchangedColumns?: readonly string[] }>;
  /** Where this event's transaction began: resuming there replays all of it. */
  readonly txnStart: P;
  /** This event's own place, compared with chunks' HIGH watermarks (a change at or before HIGH is in the chunk). */
  readonly at: P;
  /** Commit time, ms since the epoch: the record's event time. */
  readonly ts: number;
  /** The `source` of the change of row `row` of this event. */
  source(row: number): S;
  /** Schema changes the log has between the event before and this one (PostgreSQL's RELATION before a changed table's next row). */
  readonly schemaChanges?: ReadonlyArray<CdcSchemaEvent<P, S>>;
}

/**
 * A point a reader may resume from: a commit, or a statement that is its own transaction (DDL).
 * `betweenTransactionsOnly`: it is one only when no rows event of an open transaction came
 * before it (MySQL's DDL inside an open group).
 */
export interface CdcBoundaryEvent<P, S = unknown> {
  readonly type: 'boundary';
  readonly next: P;
  readonly betweenTransactionsOnly?: boolean;
  /** Schema changes before this point (MySQL's DDL statement, PostgreSQL's TRUNCATE), in order. */
  readonly schemaChanges?: ReadonlyArray<CdcSchemaEvent<P, S>>;
}
