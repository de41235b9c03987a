import type { Committer } from '../../api/two-phase-committing-sink.ts';
import { parseTransactionId, type TransactionIdPrefix } from '../database-sink/transaction-id.ts';
import { gidLiteral, sqlState, type PgConnection } from './pg-connection.ts';
import type { PostgresCommittable } from './postgres-committable.ts';

/** 42704 undefined_object: no prepared transaction with that gid (any more). */
const NO_SUCH_TRANSACTION = '42704';
/** object_not_in_prerequisite_state: what PostgreSQL says of a prepared transaction another session is ending ("… is busy"). */
const OBJECT_IN_USE = '55000';
/** How long a transaction another session ends is waited for: it ends in milliseconds. */
const BUSY_CHECKS = 50;
const BUSY_CHECK_MS = 100;

/**
 * COMMIT PREPARED per committable. A gid the server no longer has was committed already (a
 * completed checkpoint's transactions were all prepared, and only ours roll back gids of this
 * prefix, never retained ones): committing is idempotent. A connection that failed is replaced
 * on the next attempt, so a restarted server is found again.
 */
export class PostgresCommitter implements Committer<PostgresCommittable> {
  readonly target: string;
  readonly #connect: () => Promise<PgConnection>;
  readonly #prefix: TransactionIdPrefix;
  #connection: PgConnection | undefined;

  constructor(target: string, prefix: TransactionIdPrefix, connect: () => Promise<PgConnection>) {
    this.target = target;
    this.#prefix = prefix;
    this.#connect = connect;
  }

  async commit(committables: readonly PostgresCommittable[]): Promise<void> {
    for (const c of committables) {
      try {
        await this.#end(`COMMIT PREPARED ${gidLiteral(c.gid)}`, c.gid);
      } catch (e) {
        throw Object.assign(e instanceof Error ? e : new Error(String(e)), { committable: c });
      }
    }
  }

  /** Every prepared transaction of this prefix that the restored checkpoint does not hold was left by a failed attempt. */
  async recover(retained: readonly PostgresCommittable[]): Promise<void> {
    const keep = new Set(retained.map((c) => c.gid));
    for (const gid of await this.#preparedGids()) if (!keep.has(gid)) await this.#end(`ROLLBACK PREPARED ${gidLiteral(gid)}`, gid);
  }

  async abortLeftovers(): Promise<void> {
    for (const gid of await this.#preparedGids()) await this.#end(`ROLLBACK PREPARED ${gidLiteral(gid)}`, gid);
  }

  async close(): Promise<void> {
    await this.#connection?.end();
    this.#connection = undefined;
  }

  async #preparedGids(): Promise<string[]> {
    const rows = await (await this.#sql())<{ gid: string }>("SELECT gid FROM pg_prepared_xacts WHERE database = current_database() AND gid LIKE $1", [`${this.#prefix}-%`]);
    return rows.map((r) => r.gid).filter((gid) => parseTransactionId(this.#prefix, gid) !== undefined);
  }

  /** Ends a prepared transaction; one that is gone was ended already (by an earlier commit, or another subtask's recovery). */
  async #end(statement: string, gid: string): Promise<void> {
    try {
      await (await this.#sql())(statement);
    } catch (e) {
      if (sqlState(e) === NO_SUCH_TRANSACTION) return;
      // Another subtask's recovery ends the same leftover at this moment ("prepared transaction … is busy").
      if (sqlState(e) === OBJECT_IN_USE && (await this.#gone(gid))) return;
      if (sqlState(e) === undefined || this.#connection?.broken()) await this.close();
      throw e;
    }
  }

  /** Whether a transaction another session is ending is gone within a few seconds (then it ended as this one would have ended it). */
  async #gone(gid: string): Promise<boolean> {
    for (let attempt = 0; attempt < BUSY_CHECKS; attempt++) {
      const rows = await (await this.#sql())<{ n: number }>('SELECT count(*)::int AS n FROM pg_prepared_xacts WHERE gid = $1', [gid]);
      if (rows[0]?.n === 0) return true;
      await new Promise((r) => setTimeout(r, BUSY_CHECK_MS));
    }
    return false;
  }

  async #sql(): Promise<PgConnection['sql']> {
    if (this.#connection?.broken()) await this.close();
    this.#connection ??= await this.#connect();
    return this.#connection.sql;
  }
}
