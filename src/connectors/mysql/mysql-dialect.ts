import type { CdcCatalog, CdcDialect, CdcReaderSession } from '../cdc/cdc-dialect.ts';
import { BinlogPositionError, compareBinlogPositions, formatBinlogPosition } from './binlog-position.ts';
import type { MySqlLogPosition } from './cdc-split.ts';
import type { ChangeSource } from './change-record.ts';
import { detectGtidStrategy, type GtidStrategy } from './gtid-strategy.ts';
import { MySqlCatalog } from './mysql-catalog.ts';
import type { ChunkingOptions } from '../cdc/chunk-splitter.ts';
import { serverIdFor, tableMatches, type ResolvedCdcOptions } from './mysql-cdc-options.ts';
import { MySqlReaderSession } from './mysql-reader-session.ts';
import { connectSql, type SqlClient } from './sql-client.ts';

/** MySQL 8 / MariaDB 10.x as a CDC dialect: the binlog is the log, its file and offset the position. */
export class MySqlDialect implements CdcDialect<MySqlLogPosition, ChangeSource> {
  readonly logName = 'the binlog';
  readonly logMetricPrefix = 'binlog';
  readonly #o: ResolvedCdcOptions;
  #strategy: GtidStrategy | undefined;

  readonly includeSchemaChanges: boolean;
  readonly scanNewlyAddedTables: boolean;
  readonly chunking: ChunkingOptions;

  constructor(options: ResolvedCdcOptions) {
    this.#o = options;
    this.includeSchemaChanges = options.includeSchemaChanges;
    this.scanNewlyAddedTables = options.scanNewlyAddedTables;
    this.chunking = options;
  }

  captures(db: string, table: string): boolean {
    return tableMatches(this.#o, table, db);
  }

  comparePositions(a: MySqlLogPosition, b: MySqlLogPosition): number {
    if (a.file === undefined || b.file === undefined) throw new BinlogPositionError(this.formatPosition(a), this.formatPosition(b), 'a GTID state alone has no place in a binlog file');
    return compareBinlogPositions(a, b);
  }

  formatPosition(p: MySqlLogPosition): string {
    return p.file !== undefined ? formatBinlogPosition(p) : `gtid ${p.gtid}`;
  }

  async connectCatalog(): Promise<CdcCatalog<MySqlLogPosition>> {
    const sql = await connectSql(this.#o, this.#o.connectTimeoutMs);
    return new MySqlCatalog(sql, this.#o, async (s: SqlClient) => (this.#strategy ??= await detectGtidStrategy(s)));
  }

  connectReader(subtask: number, parallelism: number): Promise<CdcReaderSession<MySqlLogPosition, ChangeSource>> {
    // One id beyond the readers' for an added table's backfills while the binlog is followed.
    const spare = this.#o.scanNewlyAddedTables ? serverIdFor(this.#o, parallelism, parallelism + 1) : undefined;
    return MySqlReaderSession.connect(this.#o, serverIdFor(this.#o, subtask, parallelism), spare);
  }
}
