import type { MySqlConnectionOptions } from './mysql-connection-options.ts';

/**
 * Where the source starts reading (Flink CDC's scan.startup.mode): `initial` snapshots the tables
 * and then follows the binlog; `snapshot-only` ends after the snapshot (a bounded source: a
 * one-off copy, a backfill); the others only follow the binlog, from its end (`latest`), from
 * the oldest binlog file the server still has (`earliest`), from the first event committed at or
 * after a time (`timestamp`, ms since the epoch), or from a given file and position or GTID.
 */
export type StartupMode =
  | { readonly mode: 'initial' }
  | { readonly mode: 'snapshot-only' }
  | { readonly mode: 'latest' }
  | { readonly mode: 'earliest' }
  | { readonly mode: 'timestamp'; readonly timestampMs: number }
  | { readonly mode: 'specific'; readonly file: string; readonly pos: number }
  | { readonly mode: 'specific'; readonly gtid: string };

export interface MySqlCdcOptions extends MySqlConnectionOptions {
  readonly database: string;
  /**
   * Table names or patterns in `database` ('orders', 'order_*', /^order_\d+$/); '*' or omitted:
   * all. Tables of other databases as 'db.table' ('app_*.orders') or a RegExp over 'db.table'
   * with an escaped dot (/^app_\d+\.order_.*$/).
   */
  readonly tables?: ReadonlyArray<string | RegExp>;
  /**
   * Replication server id, or a range 'a-b' with one id per parallel reader (a MySQL/MariaDB server
   * disconnects an older binlog reader that uses the same id). Default: 5400 + a random offset.
   */
  readonly serverId?: number | string;
  /** Default { mode: 'initial' }. */
  readonly startup?: StartupMode;
  /** Rows per snapshot chunk (Flink CDC scan.incremental.snapshot.chunk.size). Default 8096. */
  readonly chunkSize?: number;
  /** The column each table is split by, by table name; default the first primary key column. */
  readonly chunkKeyColumn?: Readonly<Record<string, string>>;
  /** Keys spread evenly enough ((max - min + 1) / rows within these bounds) are split by arithmetic, not queries. */
  readonly distributionFactorUpper?: number;
  readonly distributionFactorLower?: number;
  /** How long to wait for a connection, ms. Default 10000. */
  readonly connectTimeoutMs?: number;
  /**
   * Schema changes as records of the stream (`op: 'ddl'`, with the changes and the table's
   * schema after them) in order with the rows, and each log row's `source.schemaVersion`.
   * Default false: no new record kind; changes are still followed and logged.
   */
  readonly includeSchemaChanges?: boolean;
  /**
   * Tables that come to match `tables` while the job runs (CREATE TABLE, RENAME TABLE into the
   * patterns) or when a job resumes with other patterns are snapshotted in chunks by the binlog's
   * reader while it follows the other tables, then followed (Flink CDC's
   * scan.newly-added-table.enabled); tables no longer matching on resume leave the state. Backfills
   * of their chunks use a spare server id: the `serverId` range needs one more id than readers.
   * Default false: a new table is followed from the binlog only.
   */
  readonly scanNewlyAddedTables?: boolean;
}

export interface ResolvedCdcOptions extends Required<Omit<MySqlCdcOptions, 'serverId' | 'tables' | 'chunkKeyColumn' | 'database'>> {
  readonly database: string;
  readonly tables: ReadonlyArray<string | RegExp>;
  readonly chunkKeyColumn: Readonly<Record<string, string>>;
  readonly serverIds: { readonly first: number; readonly last: number };
}

/** A bad option, named. */
export class CdcOptionError extends Error {
  readonly option: string;
  constructor(option: string, message: string) {
    super(`MySqlCdcSource option '${option}': ${message}`);
    this.name = 'CdcOptionError';
    this.option = option;
  }
}

export function resolveCdcOptions(o: MySqlCdcOptions): ResolvedCdcOptions {
  if (!o.database) throw new CdcOptionError('database', 'required');
  const chunkSize = o.chunkSize ?? 8096;
  if (!Number.isInteger(chunkSize) || chunkSize < 1) throw new CdcOptionError('chunkSize', `must be a positive integer, got ${o.chunkSize}`);
  return {
    host: o.host,
    port: o.port,
    user: o.user,
    password: o.password,
    database: o.database,
    tables: o.tables && o.tables.length > 0 ? o.tables : ['*'],
    serverIds: parseServerIds(o.serverId),
    startup: o.startup ?? { mode: 'initial' },
    chunkSize,
    chunkKeyColumn: o.chunkKeyColumn ?? {},
    distributionFactorUpper: o.distributionFactorUpper ?? 1000,
    distributionFactorLower: o.distributionFactorLower ?? 0.05,
    connectTimeoutMs: o.connectTimeoutMs ?? 10_000,
    includeSchemaChanges: o.includeSchemaChanges ?? false,
    scanNewlyAddedTables: o.scanNewlyAddedTables ?? false,
  };
}

function parseServerIds(v: number | string | undefined): { first: number; last: number } {
  if (v === undefined) {
    const first = 5400 + Math.floor(Math.random() * 1000) * 16;
    return { first, last: first + 15 };
  }
  const m = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(String(v));
  if (!m) throw new CdcOptionError('serverId', `expected a number or a range like '5400-5404', got '${v}'`);
  const first = Number(m[1]);
  const last = m[2] !== undefined ? Number(m[2]) : first;
  if (first < 1 || last < first || last > 2 ** 32 - 1) throw new CdcOptionError('serverId', `'${v}' is not a range of ids between 1 and 4294967295`);
  return { first, last };
}

/** The server id of one reader; the range must have one per reader. */
export function serverIdFor(o: ResolvedCdcOptions, subtask: number, parallelism: number): number {
  const size = o.serverIds.last - o.serverIds.first + 1;
  if (size < parallelism) {
    throw new CdcOptionError('serverId', `the range ${o.serverIds.first}-${o.serverIds.last} has ${size} id(s) for ${parallelism} parallel readers; give at least one id per reader`);
  }
  return o.serverIds.first + subtask;
}

/**
 * Whether table `db.table` is captured. A name or glob without a dot ('orders', 'order_*') is of
 * `database`; with one ('app_db.orders', 'app_*.*') it names the database too. A RegExp whose source
 * has an escaped dot (/^app_\d+\.orders$/) is tested against `db.table`, any other against the
 * names of `database`'s tables.
 */
export function tableMatches(o: ResolvedCdcOptions, table: string, db: string = o.database): boolean {
  return o.tables.some((p) => {
    if (p instanceof RegExp) return p.source.includes('\\.') ? p.test(`${db}.${table}`) : db === o.database && p.test(table);
    const dot = p.indexOf('.');
    const [dbPattern, name] = dot < 0 ? [o.database, p] : [p.slice(0, dot), p.slice(dot + 1)];
    return globMatches(dbPattern, db) && globMatches(name, table);
  });
}

/** Whether the patterns may name tables outside `database` (then the catalog looks at every database). */
export function capturesOtherDatabases(o: ResolvedCdcOptions): boolean {
  return o.tables.some((p) => (p instanceof RegExp ? p.source.includes('\\.') : p.includes('.') && p.slice(0, p.indexOf('.')) !== o.database));
}

function globMatches(pattern: string, name: string): boolean {
  if (pattern === '*') return true;
  if (!pattern.includes('*')) return pattern === name;
  return new RegExp(`^${pattern.split('*').map(escapeRegExp).join('.*')}$`).test(name);
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
