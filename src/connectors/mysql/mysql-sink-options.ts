import type { DeadLetter } from '../../api/dead-letter.ts';
import type { OutputTag } from '../../api/output-tag.ts';
import type { CommitRetryPolicy } from '../../api/two-phase-committing-sink.ts';
import type { DatabaseSinkMode } from '../database-sink/sink-mode.ts';
import type { MySqlConnectionOptions } from './mysql-connection-options.ts';

export interface MySqlSinkOptions<T = any> {
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
  /**
   * Records the server refuses (a constraint, a type, a length in strict mode, a duplicate key in
   * insert mode) go to this side output, `sinkTo(sink).getSideOutput(tag)`, with table, constraint,
   * SQLSTATE, errno and reason, instead of failing the job; the other records of their checkpoint's
   * XA transaction commit. Each batch then runs in a savepoint. Unset: a refused record fails the
   * job at once (RecordRefusedError).
   */
  readonly deadLetterOutput?: OutputTag<DeadLetter<T>>;
}
