import type { SinkContext } from '../../api/sink.ts';
import type { DeadLetter } from '../../api/dead-letter.ts';
import type { OutputTag } from '../../api/output-tag.ts';
import type { CommitRetryPolicy, Committer, PrecommittingSinkWriter, TwoPhaseCommittingSink } from '../../api/two-phase-committing-sink.ts';
import { sinkTransactionIdPrefix, type TransactionIdPrefix } from '../database-sink/transaction-id.ts';
import type { MySqlCommittable } from './mysql-committable.ts';
import { MySqlCommitter } from './mysql-committer.ts';
import { connectMySql, mysqlServerOf } from './mysql-sink-connection.ts';
import type { MySqlSinkOptions } from './mysql-sink-options.ts';
import { describeMySqlTable } from './mysql-sink-table.ts';
import { MySqlSinkWriter } from './mysql-sink-writer.ts';

/**
 * Exactly-once into a MySQL or MariaDB table with XA (Flink's JDBC XA sink): per checkpoint and
 * subtask one XA transaction, rows in multi-row statements, XA END and XA PREPARE in the
 * checkpoint's asynchronous part, XA COMMIT once it completes; on restore XA RECOVER finds the
 * prefix's prepared transactions: the restored checkpoint's are committed, every other rolled back.
 */
export class MySqlSink<T = Record<string, unknown>> implements TwoPhaseCommittingSink<T, MySqlCommittable> {
  readonly idempotentCommits: boolean;
  readonly commitRetry: CommitRetryPolicy | undefined;
  readonly deadLetterOutput: OutputTag<DeadLetter<T>> | undefined;
  readonly #o: MySqlSinkOptions<T>;

  constructor(options: MySqlSinkOptions<T>) {
    const mode = options.mode ?? 'insert';
    if (!['insert', 'upsert', 'changelog'].includes(mode)) throw new TypeError(`MySqlSink: mode must be 'insert', 'upsert' or 'changelog', got ${JSON.stringify(mode)}`);
    if (mode !== 'insert' && (options.key ?? []).length === 0) throw new TypeError(`MySqlSink for ${options.table}: mode '${mode}' needs the key columns (options.key)`);
    this.#o = options;
    this.idempotentCommits = mode !== 'insert';
    this.commitRetry = options.commitRetry;
    this.deadLetterOutput = options.deadLetterOutput;
  }

  async createWriter(ctx: SinkContext): Promise<PrecommittingSinkWriter<T, MySqlCommittable>> {
    const o = this.#o;
    const target = this.#target();
    const connect = () => connectMySql(o.connection);
    const probe = await connect();
    try {
      const table = await describeMySqlTable(probe.sql, target, o);
      return new MySqlSinkWriter<T>({
        connect,
        control: probe,
        table,
        mode: o.mode ?? 'insert',
        prefix: this.#prefix(ctx),
        subtask: ctx.subtaskIndex,
        server: mysqlServerOf(o.connection),
        database: o.connection.database,
        target,
        batchSize: o.batchSize ?? 1000,
        maxInFlight: o.maxInFlightBatches ?? 4,
        deadLetters: o.deadLetterOutput !== undefined,
      });
    } catch (e) {
      await probe.end();
      throw e;
    }
  }

  createCommitter(ctx: SinkContext): Committer<MySqlCommittable> {
    return new MySqlCommitter(this.#target(), this.#prefix(ctx), () => connectMySql(this.#o.connection));
  }

  #prefix(ctx: SinkContext): TransactionIdPrefix {
    return sinkTransactionIdPrefix(this.#o.transactionIdPrefix, ctx);
  }

  #target(): string {
    return `MySQL ${mysqlServerOf(this.#o.connection)} database ${this.#o.connection.database} table ${this.#o.table}`;
  }
}
