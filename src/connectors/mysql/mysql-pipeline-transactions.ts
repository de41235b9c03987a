import { randomBytes } from 'node:crypto';
import type { PipelineTransactions } from '../database-sink/pipeline-sink-writer.ts';
import { transactionId, type TransactionIdPrefix } from '../database-sink/transaction-id.ts';
import type { MySqlCommittable } from './mysql-committable.ts';
import { xidLiteral, type MySqlSinkConnection } from './mysql-sink-connection.ts';
import { sessionGone } from './mysql-sink-writer.ts';
import type { MySqlStatement } from './mysql-statements.ts';

interface OpenXa {
  readonly connection: MySqlSinkConnection;
  readonly gtrid: string;
  readonly bqual: string;
  readonly session: number;
}

/**
 * A pipeline sink's checkpoint transactions as MySqlSinkWriter runs them: one XA transaction per
 * checkpoint on a session of its own (a session that prepared one cannot start another until it
 * ends), gtrid `<prefix>-<subtask>-<the last cut>` and a random bqual; MySqlCommitter commits
 * and recovers them. A prepared one is committable by another session only once its own has
 * ended: `prepared` waits for that.
 */
export class MySqlPipelineTransactions implements PipelineTransactions<MySqlStatement, MySqlCommittable> {
  readonly #connect: () => Promise<MySqlSinkConnection>;
  readonly #control: MySqlSinkConnection;
  readonly #where: { readonly prefix: TransactionIdPrefix; readonly subtask: number; readonly server: string; readonly database: string; readonly lockWaitSeconds: number };
  #open: OpenXa | undefined;
  #lastCut = 0;
  /** After abort nothing begins: a session opened then would outlive the attempt. */
  #aborted = false;
  readonly #ending = new Map<string, number>();

  constructor(connect: () => Promise<MySqlSinkConnection>, control: MySqlSinkConnection, where: { prefix: TransactionIdPrefix; subtask: number; server: string; database: string; lockWaitSeconds: number }) {
    this.#connect = connect;
    this.#control = control;
    this.#where = where;
  }

  async run(statement: MySqlStatement): Promise<void> {
    if (this.#aborted) throw new Error('the transactions were aborted');
    if (!this.#open) {
      const xa = await this.#begin();
      // Aborted while the session was opened: nobody else would end it (an open XA transaction
      // ends with its session; left open it would hold its locks against the next attempt).
      if (this.#aborted) {
        await xa.connection.end().catch(() => {});
        throw new Error('the transactions were aborted');
      }
      this.#open = xa;
    }
    await this.#open.connection.sql(statement.text, statement.values);
  }

  async prepare(checkpointId: number): Promise<MySqlCommittable[]> {
    this.#lastCut = checkpointId;
    const xa = this.#open;
    if (!xa) return [];
    this.#open = undefined;
    const xid = xidLiteral(xa.gtrid, xa.bqual);
    try {
      await xa.connection.sql(`XA END ${xid}`);
      await xa.connection.sql(`XA PREPARE ${xid}`);
    } finally {
      await xa.connection.end();
    }
    this.#ending.set(xa.gtrid + xa.bqual, xa.session);
    return [{ server: this.#where.server, database: this.#where.database, gtrid: xa.gtrid, bqual: xa.bqual }];
  }

  async prepared(committables: readonly MySqlCommittable[]): Promise<void> {
    for (const c of committables) {
      const session = this.#ending.get(c.gtrid + c.bqual);
      this.#ending.delete(c.gtrid + c.bqual);
      if (session !== undefined) await sessionGone(this.#control, session);
    }
  }

  /** The open transaction's session is killed when statements are in flight (one may wait for a lock of a prepared transaction that only a recovery ends). */
  async abort(busy: boolean): Promise<void> {
    this.#aborted = true;
    const xa = this.#open;
    this.#open = undefined;
    if (xa && busy) await this.#control.sql(`KILL ${Number(xa.session)}`).catch(() => {});
    await xa?.connection.end();
  }

  async close(): Promise<void> {
    await this.#open?.connection.end();
    this.#open = undefined;
  }

  async #begin(): Promise<OpenXa> {
    const connection = await this.#connect();
    try {
      const [row] = await connection.sql<{ id: number }>('SELECT CONNECTION_ID() AS id');
      await connection.sql(`SET SESSION innodb_lock_wait_timeout = ${Math.max(1, Math.ceil(this.#where.lockWaitSeconds))}`);
      const xa: OpenXa = { connection, gtrid: transactionId(this.#where.prefix, this.#where.subtask, this.#lastCut), bqual: randomBytes(8).toString('hex'), session: Number(row?.id) };
      await connection.sql(`XA START ${xidLiteral(xa.gtrid, xa.bqual)}`);
      return xa;
    } catch (e) {
      await connection.end();
      throw e;
    }
  }
}
