import type { CommitRetryPolicy } from '../../api/two-phase-committing-sink.ts';
import type { DatabaseSinkMode } from '../database-sink/sink-mode.ts';
import type { MySqlConnectionOptions } from './mysql-connection-options.ts';

export interface MySqlSinkOptions {
  /** `database` is required: the table is looked up there. */
  readonly connection: MySqlConnectionOptions & { readonly database: string };
  readonly table: string;
  /** Unset: 'insert'. */
  readonly mode?: DatabaseSinkMode;
  /** The key columns, required for 'upsert' and 'changelog': the table needs a unique index (or primary key) on exactly them. */
  readonly key?: readonly string[];
  /** A list of names (column = field) or column -> field. Unset: every column of the table, from the field of its name. */
  readonly columns?: readonly string[] | Readonly<Record<string, string>>;
  /** The stable part of the XA transaction ids (gtrid). Unset: from the job's name and the sink's uid. */
  readonly transactionIdPrefix?: string;
  /** Rows per statement. Unset: 1000. */
  readonly batchSize?: number;
  /** Statements sent but not yet answered before the writer pushes back. Unset: 4. */
  readonly maxInFlightBatches?: number;
  readonly commitRetry?: CommitRetryPolicy;
}
