import type { SinkContext } from '../../api/sink.ts';
import type { CommitRetryPolicy, Committer, PrecommittingSinkWriter, TwoPhaseCommittingSink } from '../../api/two-phase-committing-sink.ts';
import { DEFAULT_PIPELINE_LOCK_WAIT_SECONDS, type PipelineDatabaseSinkOptions } from '../database-sink/pipeline-database-sink-options.ts';
import { PipelineSinkWriter, type PipelineWriterDialect } from '../database-sink/pipeline-sink-writer.ts';
import { RecordRefusedError } from '../database-sink/record-refused-error.ts';
import type { RoutedChange } from '../database-sink/routed-change.ts';
import { routedSchemaChanges } from '../database-sink/routed-schema-changes.ts';
import { DEFAULT_SCHEMA_CHANGE_BEHAVIOR } from '../database-sink/schema-change-behavior.ts';
import { sinkTransactionIdPrefix, type TransactionIdPrefix } from '../database-sink/transaction-id.ts';
import { connectPg, isRefusal, serverOf } from './pg-connection.ts';
import { quoteTable } from './pg-quote.ts';
import type { PostgresCommittable } from './postgres-committable.ts';
import { PostgresCommitter } from './postgres-committer.ts';
import { PostgresPipelineTransactions } from './postgres-pipeline-transactions.ts';
import { postgresSchemaDialect, postgresSchemaSession } from './postgres-schema-ddl.ts';
import { checkPreparedTransactions } from './postgres-sink.ts';
import type { PostgresConnectionOptions } from './postgres-sink-options.ts';
import { statementsFor, type Statement } from './postgres-statements.ts';
import { describeTable, fieldFits, type PostgresTable } from './postgres-table.ts';

export type PostgresPipelineSinkOptions = PipelineDatabaseSinkOptions<PostgresConnectionOptions>;

/**
 * A pipeline's PostgreSQL sink: RoutedChange records of many tables (keyed by sink table), one
 * prepared transaction per checkpoint and subtask as PostgresSink (its committer, its gids, its
 * recovery), and schema changes applied by applySchemaChangeOnce on a connection of their own,
 * in a transaction with their record in weir_schema_changes (PostgreSQL's DDL is transactional).
 */
export function postgresPipelineSink(options: PostgresPipelineSinkOptions): TwoPhaseCommittingSink<RoutedChange, PostgresCommittable> {
  return new PostgresPipelineSink(options);
}

class PostgresPipelineSink implements TwoPhaseCommittingSink<RoutedChange, PostgresCommittable> {
  /** Upserts and deletes by key, and changes recorded by id: committing again changes nothing. */
  readonly idempotentCommits = true;
  readonly schemaChanges = routedSchemaChanges;
  readonly commitRetry: CommitRetryPolicy | undefined;
  readonly #o: PostgresPipelineSinkOptions;

  constructor(options: PostgresPipelineSinkOptions) {
    this.#o = options;
    this.commitRetry = options.commitRetry;
  }

  async createWriter(ctx: SinkContext): Promise<PrecommittingSinkWriter<RoutedChange, PostgresCommittable>> {
    const o = this.#o;
    const target = this.#target();
    const server = serverOf(o.connection);
    const prefix = this.#prefix(ctx);
    const connection = await connectPg(o.connection, `weir ${ctx.operatorUid} ${ctx.subtaskIndex}`);
    const control = await connectPg(o.connection, `weir ${ctx.operatorUid} ${ctx.subtaskIndex} schema`).catch(async (e: unknown) => {
      await connection.end();
      throw e;
    });
    try {
      await checkPreparedTransactions(connection, server, target);
      await connection.sql(`SET lock_timeout = '${Math.max(1, Math.ceil(o.lockWaitSeconds ?? DEFAULT_PIPELINE_LOCK_WAIT_SECONDS))}s'`);
    } catch (e) {
      await Promise.all([connection.end(), control.end()]);
      throw e;
    }
    const dialect: PipelineWriterDialect<PostgresTable, Statement> = {
      target,
      schemaDialect: postgresSchemaDialect,
      schemaSession: postgresSchemaSession({ query: (text, values) => control.sql(text, values) }, prefix, o.markerNamespace ?? 'public'),
      describe: (ref, key) => describeTable(control.sql, target, { connection: o.connection, table: quoteTable(ref.namespace, ref.table), mode: 'changelog', key }),
      statements: (table, ops) => statementsFor(table, ops, false),
      fits: fieldFits,
      failure: (table, statement, e) => refusal(target, table, statement, e),
      end: () => control.end(),
    };
    const transactions = new PostgresPipelineTransactions(connection, { prefix, subtask: ctx.subtaskIndex, server, database: o.connection.database });
    return new PipelineSinkWriter(dialect, transactions, {
      behavior: o.schemaChangeBehavior ?? DEFAULT_SCHEMA_CHANGE_BEHAVIOR,
      ...(o.schemaChangeFilter ? { filter: o.schemaChangeFilter } : {}),
      batchSize: o.batchSize ?? 1000,
      maxInFlight: o.maxInFlightBatches ?? 4,
    });
  }

  createCommitter(ctx: SinkContext): Committer<PostgresCommittable> {
    return new PostgresCommitter(this.#target(), this.#prefix(ctx), () => connectPg(this.#o.connection, `weir ${ctx.operatorUid} committer`));
  }

  #prefix(ctx: SinkContext): TransactionIdPrefix {
    return sinkTransactionIdPrefix(this.#o.transactionIdPrefix, ctx);
  }

  #target(): string {
    return `PostgreSQL ${serverOf(this.#o.connection)} database ${this.#o.connection.database} (${this.#o.name ?? 'pipeline sink'})`;
  }
}

/** A refused row names its table and record (the batch's first: the pipeline sink does not isolate it); other errors name the table. */
function refusal(target: string, table: PostgresTable, statement: Statement, e: unknown): Error {
  const message = e instanceof Error ? e.message : String(e);
  if (isRefusal(e)) return new RecordRefusedError(target, table.name, (e as { constraint?: string }).constraint, statement.ops[0]?.record, message, { cause: e });
  return Object.assign(e instanceof Error ? e : new Error(message), { message: `${target}: table ${table.name}: ${message}` });
}
