import type { CommitRetryPolicy } from '../../api/two-phase-committing-sink.ts';
import type { SchemaChangeBehavior, SchemaChangeTypeFilter } from './schema-change-behavior.ts';

/**
 * A pipeline's database sink (`postgresPipelineSink`, `mysqlPipelineSink`): RoutedChange records
 * of many tables, one transaction per checkpoint and subtask, schema changes applied once.
 */
export interface PipelineDatabaseSinkOptions<Connection> {
  readonly connection: Connection;
  /** Flink CDC's `schema.change.behavior`. Unset: lenient. */
  readonly schemaChangeBehavior?: SchemaChangeBehavior;
  /** The sink's `include.schema.changes` / `exclude.schema.changes`. */
  readonly schemaChangeFilter?: SchemaChangeTypeFilter;
  /**
   * The stable part of the transaction ids, and the sink's id in `weir_schema_changes` (a change
   * is recorded applied per sink). Unset: from the job's name and the sink's uid.
   */
  readonly transactionIdPrefix?: string;
  /** Names the sink in errors. Unset: 'pipeline sink'. */
  readonly name?: string;
  /**
   * Where `weir_schema_changes` lives: PostgreSQL's schema (unset: public), MySQL's database
   * (unset: the connection's database, which is then required).
   */
  readonly markerNamespace?: string;
  /** Records per batch (of all tables). Unset: 1000. */
  readonly batchSize?: number;
  /** Batches sent but not yet answered before the writer pushes back. Unset: 4. */
  readonly maxInFlightBatches?: number;
  readonly commitRetry?: CommitRetryPolicy;
  /**
   * How long a statement may wait for a row lock before it fails the attempt (which restarts).
   * Upserts of a key wait for the previous checkpoint's prepared transaction to commit, which
   * takes milliseconds; a failover that tears the job down while a writer waits so (its last
   * pre-commit, after its input ended) would otherwise wait for ever: only the next attempt's
   * recovery ends that transaction. Unset: 15 s.
   */
  readonly lockWaitSeconds?: number;
}

export const DEFAULT_PIPELINE_LOCK_WAIT_SECONDS = 15;
