import type { CdcReaderSession } from '../cdc/cdc-dialect.ts';
import type { SnapshotSplit } from '../cdc/cdc-split.ts';
import type { CdcTableSchema } from '../cdc/schema-change.ts';
import { BinlogClient } from './binlog-client.ts';
import { TrackedColumns } from './tracked-columns.ts';
import { BinlogLogReader } from './binlog-log-reader.ts';
import type { LogPosition, MySqlLogPosition } from './cdc-split.ts';
import type { ChangeSource, RowImage } from './change-record.ts';
import { selectChunk } from './chunk-queries.ts';
import { detectGtidStrategy, type GtidStrategy } from './gtid-strategy.ts';
import { capturesOtherDatabases, tableMatches, type ResolvedCdcOptions } from './mysql-cdc-options.ts';
import { connectSql, type SqlClient } from './sql-client.ts';
import { TableSchemaCache } from './table-schema.ts';

/**
 * One parallel reader's connection to MySQL/MariaDB: chunk SELECTs, watermarks and the tables'
 * schemas on one SQL connection; the binlog over replication connections with this reader's
 * server id, decoded with those schemas.
 */
export class MySqlReaderSession implements CdcReaderSession<MySqlLogPosition, ChangeSource> {
  readonly #o: ResolvedCdcOptions;
  readonly #serverId: number;
  readonly #sql: SqlClient;
  readonly #schemas: TableSchemaCache;
  readonly #strategy: GtidStrategy;
  /**
   * The id of backfills while this session follows the binlog (an added table's chunks): the
   * server would drop the follower's connection for a second one with its id.
   */
  readonly #spareServerId: number | undefined;
  #following = false;
  #selectedAt: LogPosition | undefined;

  private constructor(o: ResolvedCdcOptions, serverId: number, sql: SqlClient, strategy: GtidStrategy, spareServerId: number | undefined) {
    this.#o = o;
    this.#serverId = serverId;
    this.#spareServerId = spareServerId;
    this.#sql = sql;
    this.#schemas = new TableSchemaCache(sql);
    this.#strategy = strategy;
  }

  static async connect(o: ResolvedCdcOptions, serverId: number, spareServerId?: number): Promise<MySqlReaderSession> {
    const sql = await connectSql(o, o.connectTimeoutMs);
    return new MySqlReaderSession(o, serverId, sql, await detectGtidStrategy(sql), spareServerId);
  }

  /** Watermarks are compared by file and offset only: one query, no GTID state. */
  currentPosition(): Promise<LogPosition> {
    return this.#strategy.currentOffset(this.#sql);
  }

  async rowIdentity(db: string, table: string): Promise<readonly string[]> {
    return (await this.#schemas.get(db, table)).primaryKey;
  }

  /**
   * On MariaDB in a consistent snapshot, whose binlog position the server gives
   * (Binlog_snapshot_file/position, as mysqldump --single-transaction uses): selectedAt. MySQL
   * has no such figure; its LOW stays the one read before the SELECT.
   */
  async selectChunk(split: SnapshotSplit): Promise<RowImage[]> {
    this.#selectedAt = undefined;
    if (this.#strategy.flavor !== 'mariadb') return selectChunk(this.#sql, split);
    await this.#sql.query('START TRANSACTION WITH CONSISTENT SNAPSHOT');
    try {
      const status = await this.#sql.query<{ Variable_name: string; Value: string }>("SHOW SESSION STATUS LIKE 'Binlog\\_snapshot\\_%'");
      const file = status.find((r) => r.Variable_name.toLowerCase() === 'binlog_snapshot_file')?.Value;
      const pos = Number(status.find((r) => r.Variable_name.toLowerCase() === 'binlog_snapshot_position')?.Value);
      const rows = await selectChunk(this.#sql, split);
      if (file && Number.isSafeInteger(pos) && pos > 0) this.#selectedAt = { file, pos };
      return rows;
    } finally {
      await this.#sql.query('COMMIT');
    }
  }

  selectedAt(): LogPosition | undefined {
    return this.#selectedAt;
  }

  async openLog(from: MySqlLogPosition, backfill?: { readonly db: string; readonly table: string }, schemas?: ReadonlyArray<CdcTableSchema>): Promise<BinlogLogReader> {
    const o = this.#o;
    const serverId = backfill && this.#following ? this.#spareServerId : this.#serverId;
    if (serverId === undefined) throw new Error('a backfill while following the binlog needs a spare server id (scanNewlyAddedTables)');
    if (!backfill) this.#following = true;
    const include = backfill ? (db: string, table: string) => db === backfill.db && table === backfill.table : (db: string, table: string) => tableMatches(o, table, db);
    // The checkpoint's schemas until the log follower (which takes them over) exists: the decoder starts first.
    const tracked = new TrackedColumns();
    if (schemas) tracked.use((db, table) => schemas.find((s) => s.db === db && s.table === table)?.columns);
    const client = await BinlogClient.open({
      host: o.host,
      port: o.port,
      user: o.user,
      password: o.password,
      serverId,
      start: from.file !== undefined ? { kind: 'file', file: from.file, pos: from.pos } : { kind: 'gtid', gtid: from.gtid },
      schemas: this.#schemas,
      tracked,
      include,
    });
    return new BinlogLogReader(client, include, tracked);
  }

  /** The captured tables' columns from information_schema, in binlog row order. */
  async describeTables(): Promise<CdcTableSchema[]> {
    const o = this.#o;
    const rows = await this.#sql.query<{ db: string; table_name: string; column_name: string; column_type: string }>(
      `SELECT TABLE_SCHEMA AS db, TABLE_NAME AS table_name, COLUMN_NAME AS column_name, COLUMN_TYPE AS column_type FROM information_schema.COLUMNS
       WHERE ${capturesOtherDatabases(o) ? "TABLE_SCHEMA NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys')" : 'TABLE_SCHEMA = ?'}
       ORDER BY TABLE_SCHEMA, TABLE_NAME, ORDINAL_POSITION`,
      capturesOtherDatabases(o) ? [] : [o.database],
    );
    const tables = new Map<string, CdcTableSchema>();
    for (const r of rows) {
      if (!tableMatches(o, r.table_name, r.db)) continue;
      const k = `${r.db}.${r.table_name}`;
      const t = tables.get(k) ?? { db: r.db, table: r.table_name, version: 0, columns: [] };
      tables.set(k, { ...t, columns: [...t.columns, { name: r.column_name, type: String(r.column_type).toLowerCase() }] });
    }
    return [...tables.values()];
  }

  snapshotSource(split: SnapshotSplit, high: MySqlLogPosition, row: number, ts: number): ChangeSource {
    const { db, table } = split;
    const { file, pos, gtid } = high as LogPosition;
    // One object literal per record: spreading a shared source object costs several times more.
    return gtid !== undefined ? { db, table, file, pos, row, gtid, ts, snapshot: true } : { db, table, file, pos, row, ts, snapshot: true };
  }

  close(): Promise<void> {
    return this.#sql.close();
  }
}
