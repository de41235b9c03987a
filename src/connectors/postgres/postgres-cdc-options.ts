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
  /** Where warnings go (a table without REPLICA IDENTITY FULL, a truncate). Default console.warn. */
  readonly warn?: (message: string) => void;
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
