import type { CdcCatalog, CdcStartup, CdcTable } from '../cdc/cdc-dialect.ts';
import type { ChunkBound } from '../cdc/chunk-key.ts';
import type { MySqlLogPosition } from './cdc-split.ts';
import { chunkBoundaries } from './chunk-queries.ts';
import { chunkTable } from './chunk-splitter.ts';
import type { GtidStrategy } from './gtid-strategy.ts';
import { capturesOtherDatabases, tableMatches, type ResolvedCdcOptions } from './mysql-cdc-options.ts';
import { checkBinlogSettings } from './server-check.ts';
import type { SqlClient } from './sql-client.ts';
import { TableSchemaCache } from './table-schema.ts';

/** No table in the database matched the source's table names or patterns. */
export class NoTablesMatchedError extends Error {
  readonly database: string;
  constructor(database: string, patterns: ReadonlyArray<string | RegExp>, present: string[]) {
    super(`no table in database '${database}' matches ${patterns.map(String).join(', ')} (tables there: ${present.length > 0 ? present.join(', ') : 'none'})`);
    this.name = 'NoTablesMatchedError';
    this.database = database;
  }
}

/** The enumerator's view of a MySQL/MariaDB server, over one connection. */
export class MySqlCatalog implements CdcCatalog<MySqlLogPosition> {
  readonly #sql: SqlClient;
  readonly #o: ResolvedCdcOptions;
  readonly #gtid: () => Promise<GtidStrategy>;
  readonly #boundaries;

  constructor(sql: SqlClient, options: ResolvedCdcOptions, gtid: (sql: SqlClient) => Promise<GtidStrategy>) {
    this.#sql = sql;
    this.#o = options;
    this.#gtid = () => gtid(sql);
    this.#boundaries = chunkBoundaries(sql);
  }

  async check(warn: (message: string) => void): Promise<void> {
    await checkBinlogSettings(this.#sql, this.#o);
    await this.#warnWithoutRowMetadata(warn);
  }

  /** Without it, binlog events are decoded with the tables' schemas as they are now. */
  async #warnWithoutRowMetadata(warn: (message: string) => void): Promise<void> {
    const value = await this.#sql
      .query<{ v: string }>('SELECT @@global.binlog_row_metadata AS v')
      .then((rows) => String(rows[0]?.v ?? ''))
      .catch(() => 'unavailable (the server is older than MariaDB 10.5 / MySQL 8.0.1)');
    if (value.toUpperCase() === 'FULL') return;
    warn(
      `the server's binlog_row_metadata is ${value || 'unknown'}: binlog events are decoded with each table's schema as it is now, so a reader behind an ALTER TABLE (catching up, or restored from a checkpoint taken before it) fails; SET GLOBAL binlog_row_metadata = FULL (and in the server's configuration) makes the binlog describe its own columns`,
    );
  }

  async startup(): Promise<CdcStartup<MySqlLogPosition>> {
    const s = this.#o.startup;
    switch (s.mode) {
      case 'initial':
      case 'snapshot-only':
        return { snapshot: true };
      case 'latest':
        return { snapshot: false, start: await (await this.#gtid()).currentPosition(this.#sql) };
      case 'earliest':
        return { snapshot: false, start: await this.#earliestPosition() };
      case 'timestamp':
        return { snapshot: false, start: await this.#earliestPosition(), fromTimestamp: s.timestampMs };
      case 'specific':
        return { snapshot: false, start: 'gtid' in s ? { gtid: s.gtid } : { file: s.file, pos: s.pos } };
    }
  }

  /** The oldest binlog file the server still has, from its start. */
  async #earliestPosition(): Promise<MySqlLogPosition> {
    const logs = await this.#sql.query<{ Log_name: string }>('SHOW BINARY LOGS');
    if (logs.length === 0) throw new Error('the server lists no binary logs (SHOW BINARY LOGS is empty): is log_bin on?');
    return { file: logs[0]!.Log_name, pos: 4 };
  }

  async listTables(): Promise<CdcTable[]> {
    const tables = await this.discoverTables();
    if (tables.length === 0) {
      const rows = await this.#baseTables();
      throw new NoTablesMatchedError(this.#o.database, this.#o.tables, rows.map((r) => (r.TABLE_SCHEMA === this.#o.database ? r.TABLE_NAME : `${r.TABLE_SCHEMA}.${r.TABLE_NAME}`)));
    }
    return tables;
  }

  /** The matching tables now, none an empty list. */
  async discoverTables(): Promise<CdcTable[]> {
    const o = this.#o;
    const matched = (await this.#baseTables()).filter((r) => tableMatches(o, r.TABLE_NAME, r.TABLE_SCHEMA));
    const schemas = new TableSchemaCache(this.#sql);
    const tables: CdcTable[] = [];
    for (const r of matched) tables.push(chunkTable(await schemas.get(r.TABLE_SCHEMA, r.TABLE_NAME), o.chunkKeyColumn));
    return tables;
  }

  async #baseTables(): Promise<Array<{ TABLE_SCHEMA: string; TABLE_NAME: string }>> {
    const o = this.#o;
    // Patterns naming other databases: every database but the server's own.
    const rows = capturesOtherDatabases(o)
      ? await this.#sql.query<{ TABLE_SCHEMA: string; TABLE_NAME: string }>(
          "SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys') AND TABLE_TYPE = 'BASE TABLE' ORDER BY TABLE_SCHEMA, TABLE_NAME",
        )
      : await this.#sql.query<{ TABLE_SCHEMA: string; TABLE_NAME: string }>("SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_TYPE = 'BASE TABLE' ORDER BY TABLE_NAME", [o.database]);
    return rows;
  }

  keyRange(t: CdcTable) {
    return this.#boundaries.keyRange(t);
  }

  keyAtOffset(t: CdcTable, from: ChunkBound, offset: number) {
    return this.#boundaries.keyAtOffset(t, from, offset);
  }

  keyAfter(t: CdcTable, from: ChunkBound) {
    return this.#boundaries.keyAfter(t, from);
  }

  close(): Promise<void> {
    return this.#sql.close();
  }
}
