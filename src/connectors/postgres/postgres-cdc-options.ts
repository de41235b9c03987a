import { DEFAULT_SLOT_CREATION_TIMEOUT_MS } from './logical-slot-creation.ts';
import type { PostgresConnectionOptions } from './postgres-connection-options.ts';

/**
 * Where the source starts (the MySQL source's StartupMode, extended): `initial` snapshots the
 * tables and then follows the WAL; `snapshot-only` stops after the snapshot; `latest` follows the
 * WAL from its current end; `committed-offset` from the slot's confirmed_flush_lsn; `specific` from
 * an LSN ('16/B374D848').
 */
export type PostgresStartupMode =
  | { readonly mode: 'initial' }
  | { readonly mode: 'snapshot-only' }
  | { readonly mode: 'latest' }
  | { readonly mode: 'committed-offset' }
  | { readonly mode: 'specific'; readonly lsn: string };

export interface PostgresCdcOptions extends PostgresConnectionOptions {
  /** 'schema.table' names or patterns ('public.orders', 'public.order_*', /^sales\.order_\d+$/); a name without a schema is in 'public'. */
  readonly tables: ReadonlyArray<string | RegExp>;
  /** The replication slot of the WAL phase. Default 'weir'. */
  readonly slotName?: string;
  /** The publication listing the captured tables. Default 'weir_publication'. */
  readonly publicationName?: string;
  /** Create a missing publication and slot (the user needs the rights). Default true. */
  readonly createMissing?: boolean;
  /** Default { mode: 'initial' }. */
  readonly startup?: PostgresStartupMode;
  /** The column each table is split by, by 'schema.table' or table name; default the first primary key column. */
  readonly chunkKeyColumn?: Readonly<Record<string, string>>;
  /**
   * The slot's LSN is confirmed this many completed checkpoints late, so that as many older
   * checkpoints stay restorable (Flink CDC's scan.lsn-commit.checkpoints-num-delay). Default 3.
   */
  readonly lsnCommitCheckpointsDelay?: number;
  /** Rows per snapshot chunk (Flink CDC scan.incremental.snapshot.chunk.size). Default 8096. */
  readonly chunkSize?: number;
  /**
   * Keys spread evenly enough ((max - min + 1) / rows within these bounds) are split by arithmetic,
   * not queries (Flink CDC chunk-key.even-distribution.factor.upper-bound / lower-bound).
   */
  readonly distributionFactorUpper?: number;
  readonly distributionFactorLower?: number;
  /**
   * Schema changes as records of the stream (`op: 'ddl'`, with the changes and the table's
   * schema after them) in order with the rows, and each log row's `source.schemaVersion`.
   * Default false: no new record kind; changes are still followed and logged.
   */
  readonly includeSchemaChanges?: boolean;
  /**
   * Tables that come to match `tables` while the job runs (found every 5 s, or by their rows when
   * the publication is FOR ALL TABLES) or when a job resumes with other patterns are added to the
   * publication (with createMissing), snapshotted in chunks by the WAL's reader while it follows
   * the other tables, then followed (Flink CDC's scan.newly-added-table.enabled); tables no longer
   * matching on resume leave the state. Default false.
   */
  readonly scanNewlyAddedTables?: boolean;
  /** Where warnings go (a table without REPLICA IDENTITY FULL, a truncate). Default console.warn. */
  readonly warn?: (message: string) => void;
  /**
   * How long making a replication slot (the source's, or a reader's backfill slot) may wait for
   * the transactions that were open when it began; then SlotCreationBlockedError names them.
   * Default 60 s.
   */
  readonly slotCreationTimeoutMs?: number;
}

/** Every option with its default applied. */
export interface ResolvedPostgresCdcOptions extends PostgresCdcOptions {
  readonly slotName: string;
  readonly publicationName: string;
  readonly createMissing: boolean;
  readonly startup: PostgresStartupMode;
  readonly chunkKeyColumn: Readonly<Record<string, string>>;
  readonly lsnCommitCheckpointsDelay: number;
  readonly chunkSize: number;
  readonly distributionFactorUpper: number;
  readonly distributionFactorLower: number;
  readonly connectTimeoutMs: number;
  readonly slotCreationTimeoutMs: number;
}

export const DEFAULT_SLOT = 'weir';
export const DEFAULT_PUBLICATION = 'weir_publication';
/** Each reader's backfill slot is `<slotName>_b<subtask>`: the slot name leaves room for that within PostgreSQL's 63 characters. */
const MAX_SLOT_NAME = 56;

/** A bad option, named. */
export class PostgresCdcOptionError extends Error {
  readonly option: string;
  /** The job's code must change: restarting cannot help. */
  readonly unrecoverable = true;
  constructor(option: string, message: string) {
    super(`PostgresCdcSource option '${option}': ${message}`);
    this.name = 'PostgresCdcOptionError';
    this.option = option;
  }
}

/** Checks every option and applies the defaults; a bad one is named. */
export function resolvePostgresCdcOptions(o: PostgresCdcOptions): ResolvedPostgresCdcOptions {
  for (const key of ['host', 'user', 'database'] as const) if (!o[key]) throw new PostgresCdcOptionError(key, 'required');
  if (!Number.isInteger(o.port) || o.port < 1 || o.port > 65535) throw new PostgresCdcOptionError('port', `must be a TCP port, got ${o.port}`);
  if (!Array.isArray(o.tables) || o.tables.length === 0) throw new PostgresCdcOptionError('tables', "required: 'schema.table' names or patterns, e.g. ['public.orders', 'sales.order_*']");
  const slotName = o.slotName ?? DEFAULT_SLOT;
  if (!/^[a-z0-9_]+$/.test(slotName) || slotName.length > MAX_SLOT_NAME) {
    throw new PostgresCdcOptionError('slotName', `'${slotName}' is not a replication slot name: lower-case letters, digits and underscores, at most ${MAX_SLOT_NAME} characters (readers add '_b<subtask>' for their backfill slots)`);
  }
  const publicationName = o.publicationName ?? DEFAULT_PUBLICATION;
  if (publicationName.length === 0 || publicationName.length > 63) throw new PostgresCdcOptionError('publicationName', `'${publicationName}' must have 1 to 63 characters`);
  const chunkSize = o.chunkSize ?? 8096;
  if (!Number.isInteger(chunkSize) || chunkSize < 1) throw new PostgresCdcOptionError('chunkSize', `must be a positive integer, got ${o.chunkSize}`);
  const delay = o.lsnCommitCheckpointsDelay ?? 3;
  if (!Number.isInteger(delay) || delay < 0) throw new PostgresCdcOptionError('lsnCommitCheckpointsDelay', `must be an integer >= 0, got ${o.lsnCommitCheckpointsDelay}`);
  if (o.slotCreationTimeoutMs !== undefined && !(o.slotCreationTimeoutMs > 0)) throw new PostgresCdcOptionError('slotCreationTimeoutMs', `must be a positive number of milliseconds, got ${o.slotCreationTimeoutMs}`);
  const startup = o.startup ?? { mode: 'initial' };
  checkStartup(startup);
  return {
    ...o,
    slotName,
    publicationName,
    createMissing: o.createMissing ?? true,
    startup,
    chunkKeyColumn: o.chunkKeyColumn ?? {},
    lsnCommitCheckpointsDelay: delay,
    chunkSize,
    distributionFactorUpper: o.distributionFactorUpper ?? 1000,
    distributionFactorLower: o.distributionFactorLower ?? 0.05,
    connectTimeoutMs: o.connectTimeoutMs ?? 10_000,
    slotCreationTimeoutMs: o.slotCreationTimeoutMs ?? DEFAULT_SLOT_CREATION_TIMEOUT_MS,
  };
}

function checkStartup(startup: PostgresStartupMode): void {
  const modes = ['initial', 'snapshot-only', 'latest', 'committed-offset', 'specific'];
  if (!modes.includes(startup?.mode)) throw new PostgresCdcOptionError('startup', `mode must be one of ${modes.join(', ')}; got ${JSON.stringify(startup)}`);
  if (startup.mode === 'specific' && !/^[0-9A-Fa-f]{1,8}\/[0-9A-Fa-f]{1,8}$/.test(startup.lsn ?? '')) {
    throw new PostgresCdcOptionError('startup', `an LSN is written as two hexadecimal numbers, e.g. '16/B374D848'; got ${JSON.stringify(startup.lsn)}`);
  }
}

/** Whether 'schema.table' matches the configured names and patterns. */
export function pgTableMatches(patterns: ReadonlyArray<string | RegExp>, schema: string, table: string): boolean {
  const full = `${schema}.${table}`;
  return patterns.some((p) => {
    if (p instanceof RegExp) return p.test(full);
    const qualified = p.includes('.') ? p : `public.${p}`;
    if (!qualified.includes('*')) return qualified === full;
    return new RegExp(`^${qualified.split('*').map(escapeRegExp).join('.*')}$`).test(full);
  });
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
