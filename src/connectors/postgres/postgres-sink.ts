import type { SinkContext } from '../../api/sink.ts';
import type { DeadLetter } from '../../api/dead-letter.ts';
import type { OutputTag } from '../../api/output-tag.ts';
import { SinkError } from '../../api/sink-error.ts';
import type { CommitRetryPolicy, Committer, PrecommittingSinkWriter, TwoPhaseCommittingSink } from '../../api/two-phase-committing-sink.ts';
import { sinkTransactionIdPrefix, type TransactionIdPrefix } from '../database-sink/transaction-id.ts';
import { connectPg, serverOf, type PgConnection } from './pg-connection.ts';
import type { PostgresCommittable } from './postgres-committable.ts';
import { PostgresCommitter } from './postgres-committer.ts';
import type { PostgresSinkOptions } from './postgres-sink-options.ts';
import { PostgresSinkWriter } from './postgres-sink-writer.ts';
import { describeTable } from './postgres-table.ts';

/**
 * Exactly-once into a PostgreSQL table (Flink's JDBC XA sink, with PostgreSQL's own two-phase
 * commit): per checkpoint and subtask one transaction, rows in batches, PREPARE TRANSACTION in
 * the checkpoint's asynchronous part, COMMIT PREPARED once the checkpoint completes. Gids are
 * `<prefix>-<subtask>-<checkpoint>` with a prefix stable across resumes, so a restored job commits
 * the restored checkpoint's transactions and rolls back every other one of its prefix, those a
 * killed run left included. Needs max_prepared_transactions > 0 on the server.
 */
export class PostgresSink<T = Record<string, unknown>> implements TwoPhaseCommittingSink<T, PostgresCommittable> {
  readonly idempotentCommits: boolean;
  readonly commitRetry: CommitRetryPolicy | undefined;
  readonly deadLetterOutput: OutputTag<DeadLetter<T>> | undefined;
  readonly #o: PostgresSinkOptions<T>;

  constructor(options: PostgresSinkOptions<T>) {
    const mode = options.mode ?? 'insert';
    if (!['insert', 'upsert', 'changelog'].includes(mode)) throw new TypeError(`PostgresSink: mode must be 'insert', 'upsert' or 'changelog', got ${JSON.stringify(mode)}`);
    if (mode !== 'insert' && (options.key ?? []).length === 0) throw new TypeError(`PostgresSink for ${options.table}: mode '${mode}' needs the key columns (options.key)`);
    this.#o = options;
    this.idempotentCommits = mode !== 'insert';
    this.commitRetry = options.commitRetry;
    this.deadLetterOutput = options.deadLetterOutput;
  }

  async createWriter(ctx: SinkContext): Promise<PrecommittingSinkWriter<T, PostgresCommittable>> {
    const o = this.#o;
    const target = this.#target();
    const connect = () => connectPg(o.connection, `weir ${ctx.operatorUid} ${ctx.subtaskIndex}`);
    const connection = await connect();
    try {
      await checkPreparedTransactions(connection, serverOf(o.connection), target);
      const table = await describeTable(connection.sql, target, o);
      return new PostgresSinkWriter<T>({
        connection,
        diagnose: connect,
        table,
        mode: o.mode ?? 'insert',
        prefix: this.#prefix(ctx),
        subtask: ctx.subtaskIndex,
        server: serverOf(o.connection),
        database: o.connection.database,
        target,
        batchSize: o.batchSize ?? 1000,
        maxInFlight: o.maxInFlightBatches ?? 4,
        deadLetters: o.deadLetterOutput !== undefined,
      });
    } catch (e) {
      await connection.end();
      throw e;
    }
  }

  createCommitter(ctx: SinkContext): Committer<PostgresCommittable> {
    return new PostgresCommitter(this.#target(), this.#prefix(ctx), () => connectPg(this.#o.connection, `weir ${ctx.operatorUid} committer`));
  }

  #prefix(ctx: SinkContext): TransactionIdPrefix {
    return sinkTransactionIdPrefix(this.#o.transactionIdPrefix, ctx);
  }

  #target(): string {
    return `PostgreSQL ${serverOf(this.#o.connection)} database ${this.#o.connection.database} table ${this.#o.table}`;
  }
}

/** Fails with what to set when the server cannot prepare transactions (shared with the pipeline sink). */
export async function checkPreparedTransactions(connection: PgConnection, server: string, target: string): Promise<void> {
  const [row] = await connection.sql<{ max_prepared_transactions: string }>('SHOW max_prepared_transactions');
  if (Number(row?.max_prepared_transactions ?? 0) > 0) return;
  throw new SinkError(
    'TARGET_UNSUPPORTED',
    target,
    `the server ${server} has max_prepared_transactions = 0, and PostgresSink prepares one transaction per checkpoint and subtask: set max_prepared_transactions in postgresql.conf to at least the sink's parallelism times the checkpoints in flight (64 is plenty) and restart the server`,
  );
}
