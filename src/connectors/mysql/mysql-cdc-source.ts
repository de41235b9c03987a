import type { EnumeratorContext, Source, SourceReader, SourceReaderContext, SplitEnumerator } from '../../api/source.ts';
import { BinlogClient } from './binlog-client.ts';
import type { BinlogSplit, CdcSplit, LogPosition, SnapshotSplit } from './cdc-split.ts';
import type { ChangeRecord } from './change-record.ts';
import { detectGtidStrategy, type GtidStrategy } from './gtid-strategy.ts';
import { resolveCdcOptions, serverIdFor, tableMatches, type MySqlCdcOptions, type ResolvedCdcOptions } from './mysql-cdc-options.ts';
import { MySqlSourceReader } from './mysql-source-reader.ts';
import { MySqlSplitEnumerator, type MySqlEnumeratorState } from './mysql-split-enumerator.ts';
import { checkBinlogSettings } from './server-check.ts';
import { connectSql, type SqlClient } from './sql-client.ts';
import { TableSchemaCache } from './table-schema.ts';

/**
 * Change data capture from MySQL 8 / MariaDB 10.x: a consistent snapshot of the tables read in
 * chunks without locks, then the binlog, as one stream of ChangeRecords with no change lost or
 * doubled across failures (DESIGN §8). Parallel readers share the snapshot's chunks; one follows
 * the binlog after it.
 */
export class MySqlCdcSource implements Source<ChangeRecord, CdcSplit, MySqlEnumeratorState | undefined> {
  readonly boundedness = 'unbounded' as const;
  readonly options: ResolvedCdcOptions;

  constructor(options: MySqlCdcOptions) {
    this.options = resolveCdcOptions(options);
  }

  createSplits(): CdcSplit[] {
    return [];
  }

  createEnumerator(ctx: EnumeratorContext<CdcSplit>, restored: MySqlEnumeratorState | undefined): SplitEnumerator<CdcSplit, MySqlEnumeratorState | undefined> {
    // Fails here, at the start, rather than when the binlog phase begins.
    serverIdFor(this.options, ctx.parallelism - 1, ctx.parallelism);
    let strategy: GtidStrategy | undefined;
    const gtid = async (sql: SqlClient) => (strategy ??= await detectGtidStrategy(sql));
    return new MySqlSplitEnumerator(
      ctx,
      this.options,
      {
        connect: () => connectSql(this.options, this.options.connectTimeoutMs),
        currentPosition: async (sql) => (await gtid(sql)).currentPosition(sql),
        earliestPosition: async (sql) => earliestPosition(sql),
        checkServer: (sql) => checkBinlogSettings(sql, this.options),
      },
      restored,
    );
  }

  createReader(ctx: SourceReaderContext): SourceReader<ChangeRecord, CdcSplit> {
    const o = this.options;
    const serverId = serverIdFor(o, ctx.subtaskIndex, ctx.parallelism);
    // One connection per reader: chunk SELECTs, watermarks and the tables' schemas.
    let sql: SqlClient;
    let schemas: TableSchemaCache;
    const openBinlog = (start: BinlogSplit['start'], include: (db: string, table: string) => boolean) =>
      BinlogClient.open({
        host: o.host,
        port: o.port,
        user: o.user,
        password: o.password,
        serverId,
        start: start.file !== undefined ? { kind: 'file', file: start.file, pos: start.pos } : { kind: 'gtid', gtid: start.gtid! },
        schemas,
        include,
      });
    return new MySqlSourceReader(ctx, {
      chunkReads: async () => {
        sql = await connectSql(o, o.connectTimeoutMs);
        schemas = new TableSchemaCache(sql);
        const strategy = await detectGtidStrategy(sql);
        return {
          sql,
          // Watermarks are compared by file and offset only: one query, no GTID state.
          currentPosition: () => strategy.currentOffset(sql),
          openBinlog,
          identity: async (split: SnapshotSplit) => (await schemas.get(split.db, split.table)).primaryKey,
          close: () => sql.close(),
        };
      },
      openBinlog: (split) => openBinlog(split.start, (db, table) => db === o.database && tableMatches(o, table)),
    });
  }
}

/** The oldest binlog file the server still has, from its start. */
async function earliestPosition(sql: SqlClient): Promise<LogPosition> {
  const logs = await sql.query<{ Log_name: string }>('SHOW BINARY LOGS');
  if (logs.length === 0) throw new Error('the server lists no binary logs (SHOW BINARY LOGS is empty): is log_bin on?');
  return { file: logs[0]!.Log_name, pos: 4 };
}
