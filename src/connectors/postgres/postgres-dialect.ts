import type { CdcDialect } from '../cdc/cdc-dialect.ts';
import { compareLsn, formatLsn, type Lsn } from './lsn.ts';
import type { PgChangeSource } from './pg-change-record.ts';
import { PostgresCatalog } from './postgres-catalog.ts';
import type { ChunkingOptions } from '../cdc/chunk-splitter.ts';
import { pgTableMatches, type PostgresCdcOptions } from './postgres-cdc-options.ts';
import { PostgresReaderSession } from './postgres-reader-session.ts';

/** PostgreSQL for the CDC core: positions are LSNs, the log is a pgoutput slot's stream. */
export class PostgresDialect implements CdcDialect<Lsn, PgChangeSource> {
  readonly logName = 'the WAL';
  readonly logMetricPrefix = 'wal';
  readonly #o: PostgresCdcOptions;

  readonly includeSchemaChanges: boolean;
  readonly scanNewlyAddedTables: boolean;
  readonly chunking: ChunkingOptions;

  constructor(o: PostgresCdcOptions) {
    this.#o = o;
    this.includeSchemaChanges = o.includeSchemaChanges === true;
    this.scanNewlyAddedTables = o.scanNewlyAddedTables === true;
    this.chunking = { chunkSize: o.chunkSize ?? 8096, distributionFactorUpper: o.distributionFactorUpper ?? 1000, distributionFactorLower: o.distributionFactorLower ?? 0.05 };
  }

  captures(schema: string, table: string): boolean {
    return pgTableMatches(this.#o.tables, schema, table);
  }

  comparePositions(a: Lsn, b: Lsn): number {
    return compareLsn(a, b);
  }

  formatPosition(p: Lsn): string {
    return formatLsn(p);
  }

  /** With `readers`, the catalog's check drops backfill slots of readers beyond them (a run with more readers left them). */
  connectCatalog(readers?: number): Promise<PostgresCatalog> {
    return PostgresCatalog.connect(this.#o, readers);
  }

  /** Every reader has its own temporary backfill slot, so parallelism needs nothing more. */
  connectReader(subtask: number, _parallelism: number): Promise<PostgresReaderSession> {
    return PostgresReaderSession.connect(this.#o, subtask);
  }
}
