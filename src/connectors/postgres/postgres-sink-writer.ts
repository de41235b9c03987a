import { StatementsInFlight } from '../database-sink/statements-in-flight.ts';
import type { PrecommittingSinkWriter } from '../../api/two-phase-committing-sink.ts';
import type { DeadLetter } from '../../api/dead-letter.ts';
import { RowOpBuilder } from '../database-sink/row-op-builder.ts';
import type { RowOp } from '../database-sink/row-op.ts';
import type { DatabaseSinkMode } from '../database-sink/sink-mode.ts';
import { transactionId, type TransactionIdPrefix } from '../database-sink/transaction-id.ts';
import { gidLiteral, isRefusal, type PgConnection } from './pg-connection.ts';
import type { PostgresCommittable } from './postgres-committable.ts';
import { identifyRefusal } from './refusal-diagnosis.ts';
import { runIsolatingRefusals } from '../database-sink/refused-row-isolation.ts';
import { pgDeadLetter } from './pg-dead-letter.ts';
import { statementsFor, type Statement } from './postgres-statements.ts';
import { fieldFits, type PostgresTable } from './postgres-table.ts';
import { CopyInsertStream } from './copy-insert-stream.ts';
import { CopyIn } from './copy-in.ts';

/** Encoded rows waiting for the socket beyond which the writer is not ready. */
const COPY_HIGH_WATER = 1024 * 1024;

export interface PostgresWriterSetup {
  readonly connection: PgConnection;
  /** A second connection for finding the refused record of a failed batch. */
  readonly diagnose: () => Promise<PgConnection>;
  readonly table: PostgresTable;
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

/**
 * One transaction per checkpoint on one connection: rows are sent in batches as they come
 * (BEGIN before the first), and the pre-commit sends the rest and PREPARE TRANSACTION. In insert
 * mode without a dead-letter output the batches stream into a COPY kept open across them
 * (CopyInsertStream), ended by the pre-commit; otherwise each batch is its statements (with a
 * dead-letter output, one unit in a savepoint). pg runs a connection's statements in order, so
 * records after the cut go into the next transaction while this one prepares. The writer pushes
 * back (ready()) while `maxInFlight` statements wait for the server or a COPY's data waits for the
 * socket. The first failure is kept: a refused row becomes a RecordRefusedError naming it.
 */
export class PostgresSinkWriter<T> implements PrecommittingSinkWriter<T, PostgresCommittable> {
  readonly #s: PostgresWriterSetup;
  #ops: RowOp[] = [];
  /** Whether the current checkpoint's transaction has begun (a statement was sent since the last PREPARE). */
  #inTransaction = false;
  readonly #inFlight: StatementsInFlight;
  readonly #builder: RowOpBuilder;
  /** The last statement sent, settled: the next waits for it, abort() too. */
  #last: Promise<void> = Promise.resolve();
  /** Records refused in the transaction the connection is running (statements run in order: PREPARE ends it). */
  #refusedInTransaction: Array<DeadLetter<T>> = [];
  readonly #refusedByCheckpoint = new Map<number, Array<DeadLetter<T>>>();
  /** Insert mode's rows when no dead-letter output isolates refusals per batch; undefined otherwise. */
  readonly #inserts: CopyInsertStream | undefined;

  constructor(setup: PostgresWriterSetup) {
    this.#s = setup;
    this.#inFlight = new StatementsInFlight(setup.maxInFlight);
    this.#builder = new RowOpBuilder({ table: setup.table, mode: setup.mode, target: setup.target, fits: fieldFits });
    if (setup.mode === 'insert' && !setup.deadLetters) this.#inserts = new CopyInsertStream(setup.table, this.#builder, (copy, statement) => this.#startCopy(copy, statement));
  }

  write(record: T): void {
    if (this.#inserts) {
      this.#inserts.add(record);
      if (this.#inserts.batched >= this.#s.batchSize) this.#sendBatch();
      return;
    }
    this.#builder.opsOf(record, this.#ops);
    if (this.#ops.length >= this.#s.batchSize) this.#sendBatch();
  }

  ready(): Promise<void> | undefined {
    return this.#inFlight.ready() ?? this.#inserts?.drained(COPY_HIGH_WATER);
  }

  flush(): void {
    this.#sendBatch();
  }

  prepareCommit(checkpointId: number): Promise<PostgresCommittable[]> {
    this.#sendBatch();
    this.#inserts?.end();
    if (!this.#inTransaction) return this.#inFlight.failure ? this.#inFlight.failure.then((e) => Promise.reject(e)) : Promise.resolve([]);
    this.#inTransaction = false;
    const gid = transactionId(this.#s.prefix, this.#s.subtask, checkpointId);
    const committable: PostgresCommittable = { server: this.#s.server, database: this.#s.database, gid };
    const prepare = { text: `PREPARE TRANSACTION ${gidLiteral(gid)}`, values: [], ops: [] };
    return this.#send(prepare, () => this.#endOfTransaction(checkpointId)).then(async () => {
      if (this.#inFlight.failure) throw await this.#inFlight.failure;
      return [committable];
    });
  }

  deadLetters(checkpointId: number): ReadonlyArray<DeadLetter<T>> {
    const letters = this.#refusedByCheckpoint.get(checkpointId) ?? [];
    this.#refusedByCheckpoint.delete(checkpointId);
    return letters;
  }

  #endOfTransaction(checkpointId: number): void {
    if (this.#refusedInTransaction.length > 0) this.#refusedByCheckpoint.set(checkpointId, this.#refusedInTransaction);
    this.#refusedInTransaction = [];
  }

  async close(): Promise<void> {
    await this.#s.connection.end();
  }

  /**
   * Ends the session, and waits for it to end: a PREPARE in flight has landed or not by then, and
   * the next attempt's recovery rolls it back. Statements still in flight are cut short by ending
   * the session from the server's side: one may wait for a row lock of the last checkpoint's
   * prepared transaction, which only that recovery ends.
   */
  async abort(): Promise<void> {
    this.#inserts?.end();
    if (this.#inFlight.busy) await this.#s.connection.terminate();
    await this.#last.catch(() => {});
    await this.#s.connection.end();
  }

  #sendBatch(): void {
    if (this.#inserts) {
      this.#inserts.flush();
      return;
    }
    if (this.#ops.length === 0) return;
    const ops = this.#ops;
    this.#ops = [];
    this.#begin();
    const statements = statementsFor(this.#s.table, ops);
    // With a dead-letter output the batch is one unit: a refusal isolates the records of all its statements.
    if (this.#s.deadLetters) void this.#send(statements[0]!, undefined, statements);
    else for (const statement of statements) void this.#send(statement);
  }

  #begin(): void {
    if (this.#inTransaction) return;
    this.#inTransaction = true;
    void this.#send({ text: 'BEGIN', values: [], ops: [] });
  }

  /** A COPY of the insert stream, queued like a statement: it settles once the stream has ended it and the server answered. */
  #startCopy(copy: CopyIn, statement: () => Statement): void {
    this.#begin();
    const send = () => this.#s.connection.copyIn(copy);
    this.#last = this.#inFlight.queue(this.#last, send, (e) => this.#diagnose(e, statement()));
  }

  /**
   * Queues one statement (or, with a dead-letter output, a batch's statements) behind the ones
   * sent before (pg runs one at a time anyway, and warns when queries are queued on it); its
   * failure becomes the writer's, and later ones are skipped.
   */
  #send(statement: Statement, before?: () => void, unit: readonly Statement[] = [statement]): Promise<void> {
    const run = async (s: Statement) => {
      if (s.copy !== undefined) await this.#s.connection.copyIn(CopyIn.of(s.text, Buffer.from(s.copy)));
      else await this.#s.connection.sql(s.text, s.values);
    };
    const { connection, table, target } = this.#s;
    const refused = (letter: DeadLetter) => this.#refusedInTransaction.push(letter as DeadLetter<T>);
    const send = async () => {
      before?.();
      if (this.#s.deadLetters) {
        await runIsolatingRefusals(unit, {
          control: async (text) => void (await connection.sql(text)),
          run,
          statementsOf: (ops) => statementsFor(table, ops, false),
          isRefusal,
          letterOf: (record, e) => pgDeadLetter(target, table.name, record, e),
          refused,
        });
      } else await run(statement);
    };
    return (this.#last = this.#inFlight.queue(this.#last, send, (e) => this.#diagnose(e, statement)));
  }

  async #diagnose(e: unknown, statement: Statement): Promise<Error> {
    if (!isRefusal(e) || statement.ops.length === 0) return e instanceof Error ? e : new Error(String(e));
    const { table, target } = this.#s;
    return identifyRefusal({ table, target, diagnose: this.#s.diagnose, statement, error: e });
  }
}
