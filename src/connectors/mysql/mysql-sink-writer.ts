import { StatementsInFlight } from '../database-sink/statements-in-flight.ts';
import { randomBytes } from 'node:crypto';
import type { PrecommittingSinkWriter } from '../../api/two-phase-committing-sink.ts';
import type { DeadLetter } from '../../api/dead-letter.ts';
import { RecordRefusedError } from '../database-sink/record-refused-error.ts';
import { RowOpBuilder } from '../database-sink/row-op-builder.ts';
import type { RowOp } from '../database-sink/row-op.ts';
import type { DatabaseSinkMode } from '../database-sink/sink-mode.ts';
import { transactionId, type TransactionIdPrefix } from '../database-sink/transaction-id.ts';
import type { MySqlCommittable } from './mysql-committable.ts';
import { runIsolatingRefusals } from '../database-sink/refused-row-isolation.ts';
import { isMySqlRefusal, mysqlDeadLetter, refusedConstraint, xidLiteral, type MySqlSinkConnection } from './mysql-sink-connection.ts';
import { mysqlStatementsFor, type MySqlStatement } from './mysql-statements.ts';
import { mysqlFieldFits, type MySqlTable } from './mysql-sink-table.ts';

export interface MySqlWriterSetup {
  readonly connect: () => Promise<MySqlSinkConnection>;
  /** Kept open to see a prepared transaction's session end (sessions of their own for each XA transaction). */
  readonly control: MySqlSinkConnection;
  readonly table: MySqlTable;
  readonly mode: DatabaseSinkMode;
  readonly prefix: TransactionIdPrefix;
  readonly subtask: number;
  readonly server: string;
  readonly database: string;
  readonly target: string;
  readonly batchSize: number;
  readonly maxInFlight: number;
  /** Refused records go to the sink's dead-letter output instead of failing the writer. */
  readonly deadLetters: boolean;
}

/** One XA transaction's connection and xid. */
interface OpenTransaction {
  readonly connection: Promise<MySqlSinkConnection>;
  readonly gtrid: string;
  readonly bqual: string;
  /** The last statement sent on it, settled. */
  last: Promise<void>;
  /** The session's id (CONNECTION_ID()), once known. */
  session: number | undefined;
  /** Records left out of it, refused (with a dead-letter output). */
  readonly refused: DeadLetter[];
}

/**
 * One XA transaction per checkpoint, each on a connection of its own: a session that prepared an
 * XA transaction cannot start another until it ends, while a prepared one outlives its session
 * (MariaDB ≥ 10.5, MySQL ≥ 5.7.7). The xid is given at XA START, before the checkpoint's id is
 * known: its gtrid is `<prefix>-<subtask>-<the last checkpoint cut>` and its bqual random, so it
 * is unique and recovery finds it by prefix.
 */
export class MySqlSinkWriter<T> implements PrecommittingSinkWriter<T, MySqlCommittable> {
  readonly #s: MySqlWriterSetup;
  readonly #builder: RowOpBuilder;
  #ops: RowOp[] = [];
  #txn: OpenTransaction | undefined;
  #lastCut = 0;
  readonly #inFlight: StatementsInFlight;
  readonly #open = new Set<Promise<MySqlSinkConnection>>();
  /** Transactions whose sessions have not ended: the open one, and those being prepared. */
  readonly #live = new Set<OpenTransaction>();
  readonly #refusedByCheckpoint = new Map<number, ReadonlyArray<DeadLetter<T>>>();

  constructor(setup: MySqlWriterSetup) {
    this.#s = setup;
    this.#inFlight = new StatementsInFlight(setup.maxInFlight);
    this.#builder = new RowOpBuilder({ table: setup.table, mode: setup.mode, target: setup.target, fits: mysqlFieldFits });
  }

  write(record: T): void {
    this.#builder.opsOf(record, this.#ops);
    if (this.#ops.length >= this.#s.batchSize) this.#sendBatch();
  }

  ready(): Promise<void> | undefined {
    return this.#inFlight.ready();
  }

  flush(): void {
    this.#sendBatch();
  }

  prepareCommit(checkpointId: number): Promise<MySqlCommittable[]> {
    this.#sendBatch();
    this.#lastCut = checkpointId;
    const txn = this.#txn;
    if (!txn) return this.#inFlight.failure ? this.#inFlight.failure.then((e) => Promise.reject(e)) : Promise.resolve([]);
    this.#txn = undefined;
    const xid = xidLiteral(txn.gtrid, txn.bqual);
    this.#send(txn, { text: `XA END ${xid}`, values: [], ops: [] });
    this.#send(txn, { text: `XA PREPARE ${xid}`, values: [], ops: [] });
    const committable: MySqlCommittable = { server: this.#s.server, database: this.#s.database, gtrid: txn.gtrid, bqual: txn.bqual };
    return txn.last.then(async () => {
      await this.#release(txn.connection);
      this.#live.delete(txn);
      if (this.#inFlight.failure) throw await this.#inFlight.failure;
      // Another session can commit it only once this one is gone (until then the server says it
      // does not know the xid, which a commit takes for committed): the acknowledgement waits.
      if (txn.session !== undefined) await sessionGone(this.#s.control, txn.session);
      if (txn.refused.length > 0) this.#refusedByCheckpoint.set(checkpointId, txn.refused as Array<DeadLetter<T>>);
      return [committable];
    });
  }

  deadLetters(checkpointId: number): ReadonlyArray<DeadLetter<T>> {
    const letters = this.#refusedByCheckpoint.get(checkpointId) ?? [];
    this.#refusedByCheckpoint.delete(checkpointId);
    return letters;
  }

  async close(): Promise<void> {
    await Promise.all([...this.#open].map((c) => this.#release(c)));
    await this.#s.control.end();
  }

  /**
   * Open transactions end with their sessions (rolled back); prepared ones are the next attempt's
   * recovery's. Sessions with statements in flight are killed, and their ends awaited: a statement
   * may wait for a row lock of the last checkpoint's prepared transaction, which only that
   * recovery ends (the wait would last innodb_lock_wait_timeout, 50 s by default). No statement
   * starts after this: one queued on a transaction whose session was still being opened (its id
   * unknown, so not killed) ran after the kills and waited out those 50 s, holding up the restart.
   */
  async abort(): Promise<void> {
    this.#inFlight.fail(Promise.resolve(new Error(`${this.#s.target}: the writer was aborted`)));
    const live = [...this.#live];
    if (this.#inFlight.busy) {
      for (const txn of live) if (txn.session !== undefined) await this.#s.control.sql(`KILL ${Number(txn.session)}`).catch(() => {});
    }
    await Promise.all(live.map((t) => t.last));
    await this.close();
  }

  #sendBatch(): void {
    if (this.#ops.length === 0) return;
    const ops = this.#ops;
    this.#ops = [];
    const txn = (this.#txn ??= this.#begin());
    const statements = mysqlStatementsFor(this.#s.table, ops);
    // With a dead-letter output the batch is one unit: a refusal isolates the records of all its statements.
    if (this.#s.deadLetters) this.#sendIsolating(txn, statements);
    else for (const statement of statements) this.#send(txn, statement);
  }

  #begin(): OpenTransaction {
    const connection = this.#s.connect();
    this.#open.add(connection);
    connection.catch(() => {});
    const txn: OpenTransaction = { connection, gtrid: transactionId(this.#s.prefix, this.#s.subtask, this.#lastCut), bqual: randomBytes(8).toString('hex'), last: Promise.resolve(), session: undefined, refused: [] };
    txn.last = connection.then(async (c) => {
      const [row] = await c.sql<{ id: number }>('SELECT CONNECTION_ID() AS id');
      txn.session = Number(row?.id);
    }).catch((e: unknown) => {
      this.#inFlight.fail(Promise.resolve(e instanceof Error ? e : new Error(String(e))));
    });
    this.#send(txn, { text: `XA START ${xidLiteral(txn.gtrid, txn.bqual)}`, values: [], ops: [] });
    this.#live.add(txn);
    return txn;
  }

  #send(txn: OpenTransaction, statement: MySqlStatement): void {
    const send = async () => {
      await (await txn.connection).sql(statement.text, statement.values);
    };
    txn.last = this.#inFlight.queue(txn.last, send, (e) => this.#diagnose(e, statement));
  }

  /**
   * SAVEPOINT and ROLLBACK TO SAVEPOINT work inside an XA transaction (between XA START and XA
   * END) in MariaDB 10.11 and MySQL: checked on the private MariaDB server. The savepoint of the
   * batch is still needed although a refused statement in MySQL/MariaDB rolls back only itself,
   * not the transaction: a batch is several statements (runs of inserts, upserts and deletes), and
   * the changes of one record (a changelog update that moves its key) can span two of them.
   */
  #sendIsolating(txn: OpenTransaction, statements: readonly MySqlStatement[]): void {
    const { table, target } = this.#s;
    const send = async () => {
      const connection = await txn.connection;
      const run = async (s: MySqlStatement) => void (await connection.sql(s.text, s.values));
      await runIsolatingRefusals(statements, {
        control: async (text) => void (await connection.sql(text)),
        run,
        statementsOf: (ops) => mysqlStatementsFor(table, ops),
        isRefusal: isMySqlRefusal,
        letterOf: (record, e) => mysqlDeadLetter(target, table.name, record, e),
        refused: (letter) => txn.refused.push(letter),
      });
    };
    txn.last = this.#inFlight.queue(txn.last, send, (e) => this.#diagnose(e, statements[0]!));
  }

  async #release(connection: Promise<MySqlSinkConnection>): Promise<void> {
    this.#open.delete(connection);
    await (await connection.catch(() => undefined))?.end();
  }

  /** The refused record of a batch: each change tried alone in a transaction rolled back after. */
  async #diagnose(e: unknown, statement: MySqlStatement): Promise<Error> {
    if (!isMySqlRefusal(e) || statement.ops.length === 0) return e instanceof Error ? e : new Error(String(e));
    const { table, target } = this.#s;
    const refused = (record: unknown, err: unknown) => new RecordRefusedError(target, table.name, refusedConstraint(err), record, err instanceof Error ? err.message : String(err), { cause: err });
    let connection: MySqlSinkConnection | undefined;
    try {
      connection = await this.#s.connect();
      await connection.sql('START TRANSACTION');
      for (const op of statement.ops) {
        try {
          for (const s of mysqlStatementsFor(table, [op])) await connection.sql(s.text, s.values);
        } catch (x) {
          if (isMySqlRefusal(x)) return refused(op.record, x);
          throw x;
        }
      }
    } catch {
      // A courtesy: without it the batch's first record is named.
    } finally {
      await connection?.sql('ROLLBACK').catch(() => {});
      await connection?.end();
    }
    return refused(statement.ops[0]!.record, e);
  }
}

/** Waits until the server no longer lists the session (its prepared XA transaction is then detached). */
export async function sessionGone(control: MySqlSinkConnection, session: number): Promise<void> {
  for (let delay = 1; ; delay = Math.min(delay * 2, 100)) {
    const rows = await control.sql('SELECT 1 FROM information_schema.PROCESSLIST WHERE ID = ?', [session]);
    if (rows.length === 0) return;
    await new Promise((r) => setTimeout(r, delay));
  }
}
