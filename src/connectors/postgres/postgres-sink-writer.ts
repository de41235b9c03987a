import type { PrecommittingSinkWriter } from '../../api/two-phase-committing-sink.ts';
import { ColumnMismatchError } from '../database-sink/column-mismatch-error.ts';
import type { ChangeRecordLike } from '../database-sink/change-record-like.ts';
import type { DatabaseSinkMode } from '../database-sink/sink-mode.ts';
import { transactionId, type TransactionIdPrefix } from '../database-sink/transaction-id.ts';
import { gidLiteral, isRefusal, type PgConnection } from './pg-connection.ts';
import type { PostgresCommittable } from './postgres-committable.ts';
import { identifyRefusal } from './refusal-diagnosis.ts';
import { statementsFor, type RowOp, type Statement } from './postgres-statements.ts';
import { fieldFits, jsTypeOf, type PostgresTable } from './postgres-table.ts';

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
}

/**
 * One transaction per checkpoint on one connection: rows are sent in batches as they come
 * (BEGIN before the first), and the pre-commit sends the rest and PREPARE TRANSACTION. pg runs a
 * connection's statements in order, so records after the cut go into the next transaction while
 * this one prepares. The writer pushes back (ready()) while `maxInFlight` statements wait for the
 * server. The first failure is kept: a refused row becomes a RecordRefusedError naming it.
 */
export class PostgresSinkWriter<T> implements PrecommittingSinkWriter<T, PostgresCommittable> {
  readonly #s: PostgresWriterSetup;
  #ops: RowOp[] = [];
  /** Whether the current checkpoint's transaction has begun (a statement was sent since the last PREPARE). */
  #inTransaction = false;
  #inFlight = 0;
  #drained: Array<() => void> = [];
  #failure: Promise<Error> | undefined;
  /** The fields whose first value was checked against its column's type. */
  readonly #checked = new Set<number>();
  /** Every statement sent, settled: what abort() waits for. */
  #last: Promise<unknown> = Promise.resolve();

  constructor(setup: PostgresWriterSetup) {
    this.#s = setup;
  }

  write(record: T): void {
    this.#addOps(record);
    if (this.#ops.length >= this.#s.batchSize) this.#sendBatch();
  }

  ready(): Promise<void> | undefined {
    if (this.#failure) return this.#failure.then((e) => Promise.reject(e));
    if (this.#inFlight < this.#s.maxInFlight) return undefined;
    return new Promise((resolve) => this.#drained.push(resolve));
  }

  flush(): void {
    this.#sendBatch();
  }

  prepareCommit(checkpointId: number): Promise<PostgresCommittable[]> {
    this.#sendBatch();
    if (!this.#inTransaction) return this.#failure ? this.#failure.then((e) => Promise.reject(e)) : Promise.resolve([]);
    this.#inTransaction = false;
    const gid = transactionId(this.#s.prefix, this.#s.subtask, checkpointId);
    const committable: PostgresCommittable = { server: this.#s.server, database: this.#s.database, gid };
    return this.#send({ text: `PREPARE TRANSACTION ${gidLiteral(gid)}`, values: [], ops: [] }).then(async () => {
      if (this.#failure) throw await this.#failure;
      return [committable];
    });
  }

  async close(): Promise<void> {
    await this.#s.connection.end();
  }

  /** Waits for what was sent (a PREPARE in flight lands before the connection ends; the next attempt's recovery rolls it back). */
  async abort(): Promise<void> {
    await this.#last.catch(() => {});
    await this.#s.connection.end();
  }

  /** A change record is an upsert of its after image, or a delete by its before image's key; an update that changes the key is both. */
  #addOps(record: T): void {
    const { mode, table } = this.#s;
    if (mode !== 'changelog') {
      this.#ops.push({ kind: mode, values: this.#values(record as Record<string, unknown>), unchanged: [], record });
      return;
    }
    const change = record as unknown as ChangeRecordLike;
    const keyOf = (values: readonly unknown[]) => table.key.map((k) => values[table.columns.indexOf(k)]);
    const before = change.before ? this.#values(change.before) : undefined;
    if (change.op === 'd') {
      this.#ops.push({ kind: 'delete', key: keyOf(before ?? this.#values({})), record });
      return;
    }
    const after = this.#values(change.after ?? {});
    if (change.op === 'u' && before && JSON.stringify(keyOf(before)) !== JSON.stringify(keyOf(after))) this.#ops.push({ kind: 'delete', key: keyOf(before), record });
    const unchanged = change.unchangedColumns ? table.columns.filter((c) => change.unchangedColumns!.includes(c.field)).map((c) => c.column) : [];
    this.#ops.push({ kind: 'upsert', values: after, unchanged, record });
  }

  #values(row: Record<string, unknown>): unknown[] {
    const columns = this.#s.table.columns;
    const out = new Array<unknown>(columns.length);
    for (let i = 0; i < columns.length; i++) {
      const v = row[columns[i]!.field];
      if (!this.#checked.has(i) && v !== null && v !== undefined) this.#check(i, v);
      out[i] = v ?? null;
    }
    return out;
  }

  #check(i: number, value: unknown): void {
    const c = this.#s.table.columns[i]!;
    if (!fieldFits(c.type, value)) {
      const facts = { table: this.#s.table.name, column: c.column, field: c.field, columnType: c.type, fieldType: jsTypeOf(value) };
      throw new ColumnMismatchError(this.#s.target, facts, `column ${c.column} (${c.type}) cannot hold record field ${c.field} (${jsTypeOf(value)}): change the column's type or the sink's columns mapping`);
    }
    this.#checked.add(i);
  }

  #sendBatch(): void {
    if (this.#ops.length === 0) return;
    const ops = this.#ops;
    this.#ops = [];
    if (!this.#inTransaction) {
      this.#inTransaction = true;
      void this.#send({ text: 'BEGIN', values: [], ops: [] });
    }
    for (const statement of statementsFor(this.#s.table, ops)) void this.#send(statement);
  }

  /** Sends one statement; its failure becomes the writer's (the promise itself always resolves). */
  #send(statement: Statement): Promise<void> {
    this.#inFlight++;
    const done = this.#s.connection.sql(statement.text, statement.values).then(
      () => undefined,
      (e: unknown) => {
        this.#failure ??= this.#diagnose(e, statement);
      },
    );
    this.#last = done.finally(() => {
      this.#inFlight--;
      if (this.#inFlight < this.#s.maxInFlight) for (const wake of this.#drained.splice(0)) wake();
    });
    return this.#last.then(() => undefined);
  }

  async #diagnose(e: unknown, statement: Statement): Promise<Error> {
    if (!isRefusal(e) || statement.ops.length === 0) return e instanceof Error ? e : new Error(String(e));
    const { table, target } = this.#s;
    return identifyRefusal({ table, target, diagnose: this.#s.diagnose, statement, error: e });
  }
}
