import type { Committer } from '../../api/two-phase-committing-sink.ts';
import { parseTransactionId, type TransactionIdPrefix } from '../database-sink/transaction-id.ts';
import type { MySqlCommittable } from './mysql-committable.ts';
import { mysqlErrno, xidLiteral, type MySqlSinkConnection } from './mysql-sink-connection.ts';

/** ER_XAER_NOTA: no such XA transaction (any more). */
const XAER_NOTA = 1397;

/**
 * XA COMMIT per committable; an xid the server no longer knows was committed already (only this
 * prefix's recovery rolls back, and never a retained one). XA RECOVER lists prepared
 * transactions: recovery rolls back those of the prefix that the restored checkpoint does not hold.
 */
export class MySqlCommitter implements Committer<MySqlCommittable> {
  readonly target: string;
  readonly #prefix: TransactionIdPrefix;
  readonly #connect: () => Promise<MySqlSinkConnection>;
  #connection: MySqlSinkConnection | undefined;

  constructor(target: string, prefix: TransactionIdPrefix, connect: () => Promise<MySqlSinkConnection>) {
    this.target = target;
    this.#prefix = prefix;
    this.#connect = connect;
  }

  async commit(committables: readonly MySqlCommittable[]): Promise<void> {
    for (const c of committables) {
      try {
        await this.#end(`XA COMMIT ${xidLiteral(c.gtrid, c.bqual)}`);
      } catch (e) {
        throw Object.assign(e instanceof Error ? e : new Error(String(e)), { committable: c });
      }
    }
  }

  async recover(retained: readonly MySqlCommittable[]): Promise<void> {
    const keep = new Set(retained.map((c) => `${c.gtrid}\0${c.bqual}`));
    for (const x of await this.#prepared()) if (!keep.has(`${x.gtrid}\0${x.bqual}`)) await this.#end(`XA ROLLBACK ${xidLiteral(x.gtrid, x.bqual)}`);
  }

  async abortLeftovers(): Promise<void> {
    for (const x of await this.#prepared()) await this.#end(`XA ROLLBACK ${xidLiteral(x.gtrid, x.bqual)}`);
  }

  async close(): Promise<void> {
    await this.#connection?.end();
    this.#connection = undefined;
  }

  async #prepared(): Promise<Array<{ gtrid: string; bqual: string }>> {
    const rows = await (await this.#sql())<{ gtrid_length: number; bqual_length: number; data: string | Uint8Array }>('XA RECOVER');
    return rows
      .map((r) => {
        const data = typeof r.data === 'string' ? r.data : new TextDecoder().decode(r.data);
        return { gtrid: data.slice(0, Number(r.gtrid_length)), bqual: data.slice(Number(r.gtrid_length), Number(r.gtrid_length) + Number(r.bqual_length)) };
      })
      .filter((x) => parseTransactionId(this.#prefix, x.gtrid) !== undefined);
  }

  async #end(statement: string): Promise<void> {
    try {
      await (await this.#sql())(statement);
    } catch (e) {
      if (mysqlErrno(e) === XAER_NOTA) return;
      await this.close();
      throw e;
    }
  }

  async #sql(): Promise<MySqlSinkConnection['sql']> {
    this.#connection ??= await this.#connect();
    return this.#connection.sql;
  }
}
