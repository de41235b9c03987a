import type { SourceOutput } from '../../api/source.ts';
import { CdcSchemaChangeError } from './cdc-schema-error.ts';
import type { CdcLogReader, CdcRowsEvent } from './cdc-dialect.ts';
import type { AddingTable, FinishedTable, LogSplit } from './cdc-split.ts';
import type { TablePlan } from './chunk-splitter.ts';
import type { CdcChangeRecord, CdcRecordSource, RowImage } from './change-record.ts';
import { compareChunkKeys } from './chunk-key.ts';
import type { CdcColumn, CdcSchemaEvent, CdcTableSchema } from './schema-change.ts';
import { SchemaTracker } from './schema-tracker.ts';
import { TableFigures } from './table-figures.ts';

/** How the follower reports and formats, and whether schema changes are records. */
export interface LogFollowerSetup<P> {
  readonly comparePositions: (a: P, b: P) => number;
  readonly formatPosition: (p: P) => string;
  readonly includeSchemaChanges: boolean;
  /** scanNewlyAddedTables: a captured table the split does not know yet is snapshotted before it is followed. */
  readonly addTables?: boolean;
  readonly info: (message: string, fields?: Record<string, unknown>) => void;
  readonly warn: (message: string, fields?: Record<string, unknown>) => void;
  /** Per-table counts, shared with the snapshot's (the reader's). */
  readonly figures: TableFigures;
}

/**
 * The log phase: turns rows events into change records and knows, at every point between two
 * polls, where to resume so that nothing is emitted twice: the transaction's start and how many of
 * its rows events were already emitted. Until the log passes the highest HIGH watermark, a change
 * is dropped when the snapshot chunk of its key was read at or after it.
 */
export class LogFollower<P, S extends CdcRecordSource> {
  readonly #log: CdcLogReader<P, S>;
  readonly #compare: (a: P, b: P) => number;
  readonly #setup: LogFollowerSetup<P>;
  readonly #schemas: SchemaTracker;
  /**
   * Tables whose tracked schema is the catalog's when the log phase began (a first start), not a
   * checkpoint's: the log may start before an ALTER made while the snapshot ran, so the first
   * row decides which columns the table had there.
   */
  readonly #provisional = new Set<string>();
  #split: LogSplit<P>;
  /** Rows events of the current transaction still to skip (emitted before the restored checkpoint). */
  #skip: number;
  #txn: { start: P; events: number } | undefined;
  #tables: Map<string, FinishedTable<P>>;
  /** With addTables: the tables snapshotted or being snapshotted ('db.table'). */
  readonly #captured: Set<string> | undefined;
  /** Tables being snapshotted by the log's reader: their changes are dropped until their chunk is read, and after it up to its HIGH. */
  #adding: AddingTable[];
  /**
   * Where the first change of a table being snapshotted that was dropped since the last chunk read
   * began: MySQL writes a transaction's binlog before its engine commit, so a change the follower
   * has just read may not be visible yet to the next chunk's SELECT; that chunk merges from here.
   */
  #addingDropsFrom: P | undefined;
  events = 0;
  changes = 0;
  dropped = 0;
  lastEventTs = 0;
  /** Nothing buffered at the last poll: the reader has read all the server has written. */
  caughtUp = false;

  schemaChanges = 0;
  /**
   * Tables whose rows are checked against the tracked schema: those not changed since the split's
   * position. After a change the log's own description (or an unparsed DDL) is the truth.
   */
  readonly #settled = new Set<string>();
  #checkRows = true;

  /** `described`: the tables' schemas now, for those the split has none of (a first start). */
  constructor(log: CdcLogReader<P, S>, split: LogSplit<P>, setup: LogFollowerSetup<P>, described: readonly CdcTableSchema[] = []) {
    this.#log = log;
    this.#compare = setup.comparePositions;
    this.#setup = setup;
    this.#schemas = new SchemaTracker(split.schemas);
    const restored = (split.schemas ?? []).map((s) => `${s.db}.${s.table}`);
    for (const name of split.unconfirmedSchemas ?? restored) this.#provisional.add(name);
    for (const s of described) if (!restored.includes(`${s.db}.${s.table}`)) this.#provisional.add(`${s.db}.${s.table}`);
    this.#schemas.seed(described);
    this.#split = split;
    this.#skip = split.skipEvents;
    this.#tables = new Map(split.tables.map((t) => [`${t.db}.${t.table}`, t]));
    // Kept only while the option is on: a list left from a run without it would miss the tables created meanwhile.
    this.#captured = setup.addTables ? new Set(split.captured ?? []) : undefined;
    this.#adding = setup.addTables ? [...(split.adding ?? [])] : [];
    if (!setup.addTables) this.#split = withoutAdding(split);
  }

  /**
   * A captured table the split does not know: its changes are dropped from here on until its
   * chunks are read (each chunk's HIGH is taken after this point, so the chunk holds them).
   */
  found(db: string, table: string, why: string): void {
    const name = `${db}.${table}`;
    if (!this.#captured || this.#captured.has(name)) return;
    this.#captured.add(name);
    this.#adding.push({ db, table, plan: null });
    this.#setup.info(`table ${name} ${why}: it is snapshotted in chunks while ${this.#setup.formatPosition(this.position)} onwards is followed, then followed`, { table: name });
  }

  /** Whether the split lists the table as snapshotted or being snapshotted (true when not tracked). */
  knows(db: string, table: string): boolean {
    return this.#captured?.has(`${db}.${table}`) ?? true;
  }

  /** The tables the split lists (undefined without addTables). */
  get captured(): ReadonlySet<string> | undefined {
    return this.#captured;
  }

  /** Where the next added chunk's merge must begin at the latest (see #addingDropsFrom); reset. */
  takeAddingDropsFrom(): P | undefined {
    const from = this.#addingDropsFrom;
    this.#addingDropsFrom = undefined;
    return from;
  }

  /** The table whose next chunk is to be read. */
  get nextAdding(): AddingTable | undefined {
    return this.#adding[0];
  }

  /**
   * A chunk of an added table was read (and its rows emitted in the same poll): from here its key
   * range's changes are dropped up to `high` and followed after it. `plan`: the cutting after it.
   */
  chunkRead(plan: TablePlan, chunk: FinishedTable<P>['chunks'][number]): void {
    const name = `${plan.db}.${plan.table}`;
    const t = this.#tables.get(name) ?? { db: plan.db, table: plan.table, keyColumn: plan.keyColumn, keyKind: plan.keyKind, chunks: [] };
    this.#tables.set(name, { ...t, chunks: [...t.chunks, chunk] });
    this.#adding = plan.done ? this.#adding.filter((a) => `${a.db}.${a.table}` !== name) : this.#adding.map((a) => (`${a.db}.${a.table}` === name ? { ...a, plan } : a));
    const maxHigh = this.#split.maxHigh === null || this.#compare(chunk.high, this.#split.maxHigh) > 0 ? chunk.high : this.#split.maxHigh;
    this.#split = { ...this.#split, tables: [...this.#tables.values()], maxHigh };
    if (plan.done) this.#setup.info(`table ${name} is snapshotted (${plan.nextIndex} chunk(s)); it is followed`, { table: name });
  }

  /**
   * Compares the split's tables with those the patterns capture now, as a job resumes: a matching
   * table the split does not list is snapshotted; a listed one the patterns no longer match leaves
   * the state. A split without a list (a checkpoint from before it) adopts what matches now.
   */
  reconcile(now: ReadonlyArray<{ readonly db: string; readonly table: string }>, captures: (db: string, table: string) => boolean, listed: boolean): void {
    const captured = this.#captured;
    if (!captured) return;
    if (!listed) {
      for (const t of now) captured.add(`${t.db}.${t.table}`);
      for (const t of this.#split.tables) captured.add(`${t.db}.${t.table}`);
      this.#setup.info(`tables added later are looked for from here on; the ${captured.size} table(s) matching now are taken as snapshotted`);
      return;
    }
    for (const name of [...captured]) {
      const dot = name.indexOf('.');
      const [db, table] = [name.slice(0, dot), name.slice(dot + 1)];
      if (captures(db, table)) continue;
      captured.delete(name);
      this.#adding = this.#adding.filter((a) => a.db !== db || a.table !== table);
      this.#tables.delete(name);
      this.#schemas.forget(db, table);
      this.#split = { ...this.#split, tables: [...this.#tables.values()] };
      this.#setup.info(`table ${name} no longer matches the source's patterns: dropped from the state, no longer followed`, { table: name });
    }
    for (const t of now) this.found(t.db, t.table, 'matches the source\'s patterns and was not snapshotted (patterns changed on resume, or created while the job was stopped)');
  }

  /** An added table that cannot be snapshotted (gone): dropped from the state, named in the log. */
  abandon(db: string, table: string, why: string): void {
    const name = `${db}.${table}`;
    this.#adding = this.#adding.filter((a) => `${a.db}.${a.table}` !== name);
    this.#captured?.delete(name);
    this.#tables.delete(name);
    this.#split = { ...this.#split, tables: [...this.#tables.values()] };
    this.#setup.warn(`table ${name} is not snapshotted: ${why}`, { table: name });
  }

  available(): Promise<void> {
    return this.#log.available();
  }

  /** Emits the changes of at most one rows event; 'nothing' when none is buffered. */
  poll(out: SourceOutput<CdcChangeRecord<S>>): 'more' | 'nothing' {
    for (;;) {
      const ev = this.#log.next();
      this.caughtUp = ev === undefined;
      if (!ev) return 'nothing';
      // Applied again on a replay after a restore: the tracker finds nothing new then.
      let emitted = false;
      for (const change of ev.schemaChanges ?? []) emitted = this.#schemaChange(change, out) || emitted;
      if (ev.type === 'boundary') {
        // A restore must not go back before a statement that is its own transaction (DDL), where
        // rows have the old shape but would be decoded with the table's schema as it is now.
        if (!ev.betweenTransactionsOnly || this.#txn === undefined) this.#commit(ev.next);
        if (emitted) return 'more';
        continue;
      }
      if (this.#txn === undefined || this.#compare(this.#txn.start, ev.txnStart) !== 0) this.#txn = { start: ev.txnStart, events: 0 };
      this.#txn.events++;
      if (this.#skip > 0) {
        this.#skip--;
        if (emitted) return 'more';
        continue;
      }
      this.events++;
      this.lastEventTs = ev.ts;
      this.#emit(ev, out);
      return 'more';
    }
  }

  #commit(at: P): void {
    this.#txn = undefined;
    this.#skip = 0;
    // Past every chunk's HIGH with no table still being snapshotted: no change can be in a chunk any more, the chunk table is dropped.
    const passed = this.#split.maxHigh !== null && this.#adding.length === 0 && this.#compare(at, this.#split.maxHigh) >= 0;
    if (passed) this.#tables = new Map();
    this.#split = { ...this.#split, start: at, skipEvents: 0, ...(passed ? { tables: [], maxHigh: null } : {}) };
  }

  /** A table's columns as tracked now (see CdcLogReader.useTrackedColumns). */
  trackedColumns(db: string, table: string): readonly CdcColumn[] | undefined {
    return this.#schemas.get(db, table)?.columns;
  }

  /** Where to resume: the current transaction's start and how many of its rows events are out. */
  snapshot(): LogSplit<P> {
    const schemas = this.#schemas.snapshot();
    const tracked = this.#captured ? { captured: [...this.#captured], adding: this.#adding } : {};
    const split = { ...this.#split, ...(schemas.length > 0 ? { schemas, unconfirmedSchemas: [...this.#provisional] } : {}), ...tracked };
    if (!this.#txn) return split;
    return { ...split, start: this.#txn.start, skipEvents: this.#txn.events };
  }

  /**
   * Follows a schema change (the tracker's columns and version) and logs it; with
   * includeSchemaChanges emits it as an `op: 'ddl'` record. True when a record was emitted.
   */
  #schemaChange(ev: CdcSchemaEvent<P, S>, out: SourceOutput<CdcChangeRecord<S>>): boolean {
    const name = `${ev.db}.${ev.table}`;
    this.#settled.add(name);
    if (ev.unrecognized !== undefined) {
      if (!ev.table) this.#checkRows = false;
      // Never dropped silently: rows still decode by the log's own metadata, but downstream gets no record of it.
      const at = this.#setup.formatPosition(ev.at);
      this.#setup.warn(`a DDL statement at ${at} was not understood (${ev.unrecognized}); schemas are tracked as before it: ${(ev.statement ?? '').slice(0, 500)}`, { position: at, statement: ev.statement, reason: ev.unrecognized });
      return false;
    }
    this.#refuseUnfollowable(ev, name);
    // Rows of a table created or renamed into the patterns may predate this point (RENAME TABLE): it is snapshotted.
    if (ev.changes?.some((c) => c.kind === 'create.table')) this.found(ev.db, ev.table, `was created at ${this.#setup.formatPosition(ev.at)}`);
    const tracked = this.#schemas.apply(ev);
    if (!tracked) return false;
    this.schemaChanges++;
    this.#setup.figures.count(ev.db, ev.table, 'ddl');
    const kinds = tracked.changes.map((c) => c.kind).join(', ');
    this.#setup.info(`schema change of ${name} at ${this.#setup.formatPosition(ev.at)}: ${kinds}; version ${tracked.schema.version}: (${tracked.schema.columns.map((c) => `${c.name} ${c.type}`).join(', ')})`, {
      table: name,
      changes: tracked.changes,
      version: tracked.schema.version,
      ...(ev.statement !== undefined ? { statement: ev.statement } : {}),
    });
    if (!this.#setup.includeSchemaChanges) return false;
    const from = this.#split.fromTimestamp;
    if (from !== undefined && Math.floor(ev.ts / 1000) < Math.floor(from / 1000)) return false;
    const schemaChange = ev.statement !== undefined ? { changes: tracked.changes, schema: tracked.schema, statement: ev.statement } : { changes: tracked.changes, schema: tracked.schema };
    out.collect({ op: 'ddl', before: null, after: null, source: ev.source, schemaChange }, ev.ts);
    return true;
  }

  /** While changes are merged with the snapshot's chunks by their key, that key must stay. */
  #refuseUnfollowable(ev: CdcSchemaEvent<P, S>, name: string): void {
    const t = this.#tables.get(name);
    if (!t) return;
    const at = this.#setup.formatPosition(ev.at);
    if (ev.primaryKeyDropped) throw new CdcSchemaChangeError(ev.db, ev.table, at, 'primary-key-dropped', `its primary key was dropped while changes are still merged with its snapshot chunks by ${t.keyColumn}`);
    const keyGone = ev.changes?.some((c) => (c.kind === 'drop.column' && c.column === t.keyColumn) || (c.kind === 'rename.column' && c.from === t.keyColumn) || c.kind === 'drop.table');
    const listed = ev.columns && !ev.changes && !ev.columns.some((c) => c.name === t.keyColumn);
    if (keyGone || listed) throw new CdcSchemaChangeError(ev.db, ev.table, at, 'chunk-key-dropped', `its chunk key ${t.keyColumn} is gone while changes are still merged with its snapshot chunks by it`);
  }

  get position(): P {
    return this.#split.start;
  }

  #emit(ev: CdcRowsEvent<P, S>, out: SourceOutput<CdcChangeRecord<S>>): void {
    const from = this.#split.fromTimestamp;
    if (from !== undefined && Math.floor(ev.ts / 1000) < Math.floor(from / 1000)) return;
    const name = `${ev.db}.${ev.table}`;
    if (!this.knows(ev.db, ev.table)) this.found(ev.db, ev.table, `has changes at ${this.#setup.formatPosition(ev.at)} and was not snapshotted`);
    this.#checkDecoded(ev, name);
    const table = this.#tables.get(name);
    const adding = this.#adding.length > 0 && this.#adding.some((a) => a.db === ev.db && a.table === ev.table);
    const version = this.#setup.includeSchemaChanges ? this.#schemas.version(ev.db, ev.table) : undefined;
    ev.rows.forEach((r, row) => {
      // A decoder may leave an absent image undefined.
      const before = r.before ?? null;
      const after = r.after ?? null;
      let op = ev.op;
      // Halves of the change that the snapshot already holds are dropped.
      const afterSeen = after !== null && (table !== undefined ? this.#seen(table, after, ev.at, adding) : adding);
      // An update without a before image (PostgreSQL without REPLICA IDENTITY FULL, key unchanged)
      // is of the after image's row: seen or not with it.
      const beforeSeen = before === null ? op === 'u' && afterSeen : table !== undefined ? this.#seen(table, before, ev.at, adding) : adding;
      let b = before;
      let a = after;
      if (op === 'u' && beforeSeen !== afterSeen) {
        // An update whose after image lacks unchanged columns stays listed as such (the record's
        // unchangedColumns): no snapshot row holds them for the new key. A dialect fills them from
        // a full before image where the log has one (PostgreSQL's REPLICA IDENTITY FULL).
        if (beforeSeen) [op, b] = ['c', null];
        else [op, a] = ['d', null];
      } else if ((op === 'c' && afterSeen) || (op === 'd' && beforeSeen) || (op === 'u' && beforeSeen && afterSeen)) {
        this.dropped++;
        if (adding) this.#addingDropsFrom ??= ev.txnStart;
        return;
      }
      this.changes++;
      this.#setup.figures.countOf(name, op);
      const source = version === undefined ? ev.source(row) : { ...ev.source(row), schemaVersion: version };
      const record: CdcChangeRecord<S> = r.unchangedColumns !== undefined && a !== null ? { op, before: b, after: a, source, unchangedColumns: r.unchangedColumns } : { op, before: b, after: a, source };
      // The commit time is the record's event time (a WatermarkStrategy makes watermarks from it).
      out.collect(record, ev.ts);
    });
  }

  /**
   * A restored split's schemas are the tables' as of its position. A row of a table not changed
   * since, decoded with other columns (the server's schema now, after an ALTER or DROP while the
   * job was stopped), would be a wrong decode: refused, naming table and position.
   */
  #checkDecoded(ev: CdcRowsEvent<P, S>, name: string): void {
    if (!this.#checkRows || this.#settled.has(name)) return;
    const tracked = this.#schemas.get(ev.db, ev.table);
    const first = ev.rows[0];
    const image = first?.after ?? first?.before;
    // A schema tracked without columns (a table the split knows only by name) says nothing to check against.
    if (!tracked || !image || tracked.columns.length === 0) return;
    const names = tracked.columns.map((c) => c.name);
    const decoded = Object.keys(image);
    // Inserts carry every column; other images may carry fewer (a key-only delete, unchanged TOASTed values).
    const known = decoded.every((c) => names.includes(c));
    // The catalog's columns now, read after the log's start: a row with fewer shows the table
    // before a change still to come in the log (the dialects that check rows log full images).
    if (this.#provisional.delete(name) && known) {
      if (decoded.length < names.length) this.#schemas.rebase(ev.db, ev.table, decoded);
      return;
    }
    const fits = known && (ev.op !== 'c' || decoded.length === names.length);
    if (fits) return;
    this.#settled.add(name);
    const at = this.#setup.formatPosition(ev.at);
    throw new CdcSchemaChangeError(
      ev.db,
      ev.table,
      at,
      'stale-schema',
      `its row at ${at} was decoded with columns (${decoded.join(', ')}), but the table had (${names.join(', ')}) there (the checkpoint's schema): it was altered or dropped after this point and the log is decoded with its schema now. Restore from a checkpoint taken after the change, or let the log describe its own rows (MySQL/MariaDB: binlog_row_metadata = FULL)`,
    );
  }

  /**
   * Whether the finished chunk holding this row's key was read at or after the event. A key in no
   * finished chunk of a table being snapshotted (`adding`) is in a chunk still to be read: seen.
   */
  #seen(table: FinishedTable<P>, row: RowImage, at: P, adding = false): boolean {
    const key = row[table.keyColumn];
    const chunks = table.chunks;
    let lo = 0;
    let hi = chunks.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const c = chunks[mid]!;
      if (c.start !== null && compareChunkKeys(table.keyKind, key, c.start) < 0) hi = mid - 1;
      else if (c.end !== null && compareChunkKeys(table.keyKind, key, c.end) >= 0) lo = mid + 1;
      else return this.#compare(at, c.high) <= 0;
    }
    return adding;
  }

  close(): Promise<void> {
    return this.#log.close();
  }
}

/** A split as a source without addTables keeps it. */
function withoutAdding<P>(split: LogSplit<P>): LogSplit<P> {
  const { captured: _c, adding: _a, ...rest } = split;
  return rest;
}
