import type { PipelineTransactions } from '../database-sink/pipeline-sink-writer.ts';
import { transactionId, type TransactionIdPrefix } from '../database-sink/transaction-id.ts';
import { gidLiteral, type PgConnection } from './pg-connection.ts';
import type { PostgresCommittable } from './postgres-committable.ts';
import type { Statement } from './postgres-statements.ts';

/**
 * A pipeline sink's checkpoint transactions on one PostgreSQL connection, as PostgresSinkWriter
 * runs them: BEGIN before the first statement, PREPARE TRANSACTION `<prefix>-<subtask>-<checkpoint>`
 * at the cut; PostgresCommitter commits and recovers them.
 */
export class PostgresPipelineTransactions implements PipelineTransactions<Statement, PostgresCommittable> {
  readonly #connection: PgConnection;
  readonly #where: { readonly prefix: TransactionIdPrefix; readonly subtask: number; readonly server: string; readonly database: string };
  #open = false;

  constructor(connection: PgConnection, where: { prefix: TransactionIdPrefix; subtask: number; server: string; database: string }) {
    this.#connection = connection;
    this.#where = where;
  }

  async run(statement: Statement): Promise<void> {
    if (!this.#open) {
      await this.#connection.sql('BEGIN');
      this.#open = true;
    }
    await this.#connection.sql(statement.text, statement.values);
  }

  async prepare(checkpointId: number): Promise<PostgresCommittable[]> {
    if (!this.#open) return [];
    this.#open = false;
    const { prefix, subtask, server, database } = this.#where;
    const gid = transactionId(prefix, subtask, checkpointId);
    await this.#connection.sql(`PREPARE TRANSACTION ${gidLiteral(gid)}`);
    return [{ server, database, gid }];
  }

  /** A statement in flight may wait for a row lock of the last checkpoint's prepared transaction: the session is ended from the server's side. */
  async abort(busy: boolean): Promise<void> {
    if (busy) await this.#connection.terminate();
    await this.#connection.end();
  }

  async close(): Promise<void> {
    await this.#connection.end();
  }
}
