import type { SinkContext } from '../../api/sink.ts';
import type { CommitRetryPolicy, Committer, PrecommittingSinkWriter, TwoPhaseCommittingSink } from '../../api/two-phase-committing-sink.ts';
import { DEFAULT_PIPELINE_LOCK_WAIT_SECONDS, type PipelineDatabaseSinkOptions } from '../database-sink/pipeline-database-sink-options.ts';
import { PipelineSinkWriter, type PipelineWriterDialect } from '../database-sink/pipeline-sink-writer.ts';
import { RecordRefusedError } from '../database-sink/record-refused-error.ts';
import type { RoutedChange } from '../database-sink/routed-change.ts';
import { routedSchemaChanges } from '../database-sink/routed-schema-changes.ts';
import { DEFAULT_SCHEMA_CHANGE_BEHAVIOR } from '../database-sink/schema-change-behavior.ts';
import { sinkTransactionIdPrefix, type TransactionIdPrefix } from '../database-sink/transaction-id.ts';
import type { MySqlCommittable } from './mysql-committable.ts';
import { MySqlCommitter } from './mysql-committer.ts';
import type { MySqlConnectionOptions } from './mysql-connection-options.ts';
import { MySqlPipelineTransactions } from './mysql-pipeline-transactions.ts';
import { mySqlSchemaDialect, mySqlSchemaSession } from './mysql-schema-ddl.ts';
import { connectMySql, isMySqlRefusal, mysqlServerOf, refusedConstraint } from './mysql-sink-connection.ts';
import { describeMySqlTable, mysqlFieldFits, type MySqlTable } from './mysql-sink-table.ts';
import { mysqlStatementsFor, type MySqlStatement } from './mysql-statements.ts';

export type MySqlPipelineSinkOptions = PipelineDatabaseSinkOptions<MySqlConnectionOptions>;

/**
 * A pipeline's MySQL/MariaDB sink: RoutedChange records of many tables (keyed by sink table; a
 * table's namespace is its database), one XA transaction per checkpoint and subtask as MySqlSink
 * (its committer, its xids, its recovery), and schema changes applied by applySchemaChangeOnce on
 * a connection of its own: MySQL's DDL commits by itself, so a change is run and then recorded in
 * weir_schema_changes (in `markerNamespace`), and one whose record a crash lost is found done by
 * planning it against the table again.
 */
export function mysqlPipelineSink(options: MySqlPipelineSinkOptions): TwoPhaseCommittingSink<RoutedChange, MySqlCommittable> {
  return new MySqlPipelineSink(options);
}

class MySqlPipelineSink implements TwoPhaseCommittingSink<RoutedChange, MySqlCommittable> {
  readonly idempotentCommits = true;
  readonly schemaChanges = routedSchemaChanges;
  readonly commitRetry: CommitRetryPolicy | undefined;
  readonly #o: MySqlPipelineSinkOptions;
  readonly #marker: string;

  constructor(options: MySqlPipelineSinkOptions) {
    const marker = options.markerNamespace ?? options.connection.database;
    if (!marker) throw new TypeError(`mysqlPipelineSink ${options.name ?? ''}: set connection.database or markerNamespace (the database for weir_schema_changes)`);
    this.#o = options;
    this.#marker = marker;
    this.commitRetry = options.commitRetry;
  }

  async createWriter(ctx: SinkContext): Promise<PrecommittingSinkWriter<RoutedChange, MySqlCommittable>> {
    const o = this.#o;
    const target = this.#target();
    const prefix = this.#prefix(ctx);
    const connect = () => connectMySql(o.connection);
    const control = await connect();
    const dialect: PipelineWriterDialect<MySqlTable, MySqlStatement> = {
      target,
      schemaDialect: mySqlSchemaDialect,
      schemaSession: mySqlSchemaSession({ query: (text, values) => control.sql(text, values) }, prefix, this.#marker),
      describe: (ref, key) => describeMySqlTable(control.sql, target, { connection: { ...o.connection, database: ref.namespace }, table: ref.table, mode: 'changelog', key }),
      statements: mysqlStatementsFor,
      fits: mysqlFieldFits,
      failure: (table, statement, e) => refusal(target, table, statement, e),
      end: () => control.end(),
    };
    const transactions = new MySqlPipelineTransactions(connect, control, { prefix, subtask: ctx.subtaskIndex, server: mysqlServerOf(o.connection), database: o.connection.database ?? this.#marker, lockWaitSeconds: o.lockWaitSeconds ?? DEFAULT_PIPELINE_LOCK_WAIT_SECONDS });
    return new PipelineSinkWriter(dialect, transactions, {
      behavior: o.schemaChangeBehavior ?? DEFAULT_SCHEMA_CHANGE_BEHAVIOR,
      ...(o.schemaChangeFilter ? { filter: o.schemaChangeFilter } : {}),
      batchSize: o.batchSize ?? 1000,
      maxInFlight: o.maxInFlightBatches ?? 4,
    });
  }

  createCommitter(ctx: SinkContext): Committer<MySqlCommittable> {
    return new MySqlCommitter(this.#target(), this.#prefix(ctx), () => connectMySql(this.#o.connection));
  }

  #prefix(ctx: SinkContext): TransactionIdPrefix {
    return sinkTransactionIdPrefix(this.#o.transactionIdPrefix, ctx);
  }

  #target(): string {
    return `MySQL ${mysqlServerOf(this.#o.connection)} (${this.#o.name ?? 'pipeline sink'})`;
  }
}

function refusal(target: string, table: MySqlTable, statement: MySqlStatement, e: unknown): Error {
  const message = e instanceof Error ? e.message : String(e);
  if (isMySqlRefusal(e)) return new RecordRefusedError(target, table.name, refusedConstraint(e), statement.ops[0]?.record, message, { cause: e });
  return Object.assign(e instanceof Error ? e : new Error(message), { message: `${target}: table ${table.name}: ${message}` });
}
