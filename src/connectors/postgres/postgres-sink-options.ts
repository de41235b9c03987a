import type { DatabaseSinkMode } from '../database-sink/sink-mode.ts';
import type { CommitRetryPolicy } from '../../api/two-phase-committing-sink.ts';
import type { DeadLetter } from '../../api/dead-letter.ts';
import type { OutputTag } from '../../api/output-tag.ts';

/** Where a PostgreSQL connector connects (no pg types: a user's project compiles without @types/pg). */
export interface PostgresConnectionOptions {
  readonly host: string;
  readonly port?: number;
  readonly user: string;
  readonly password?: string;
  readonly database: string;
}

export interface PostgresSinkOptions<T = any> {
  readonly connection: PostgresConnectionOptions;
  /** The table, `name` or `schema.name`, each part as stored in the catalog or double-quoted when it holds a dot (`shop."odd.name"`). Default schema: public. */
  readonly table: string;
  /** Unset: 'insert'. */
  readonly mode?: DatabaseSinkMode;
  /** The key columns, required for 'upsert' and 'changelog': the table needs a unique index on exactly them. */
  readonly key?: readonly string[];
  /**
   * Which record field goes to which column: a list of names (column = field) or column -> field.
   * Unset: every column of the table, from the field of the same name. Checked against the table at start.
   */
  readonly columns?: readonly string[] | Readonly<Record<string, string>>;
  /** The stable part of the transaction ids (prepared transactions' gids). Unset: from the job's name and the sink's uid. */
  readonly transactionIdPrefix?: string;
  /** Rows per statement. Unset: 1000. */
  readonly batchSize?: number;
  /** Statements sent but not yet answered before the writer pushes back. Unset: 4. */
  readonly maxInFlightBatches?: number;
  readonly commitRetry?: CommitRetryPolicy;
  /**
   * Records the database refuses (a constraint, a type, a length) go to this side output,
   * `sinkTo(sink).getSideOutput(tag)`, with table, constraint and reason, instead of failing the
   * job; the other records of their checkpoint commit. Each batch then runs in a savepoint.
   * Unset: a refused record fails the job at once (RecordRefusedError).
   */
  readonly deadLetterOutput?: OutputTag<DeadLetter<T>>;
}
