import type { PrecommittingSinkWriter } from '../../api/two-phase-committing-sink.ts';
import { SinkError } from '../../api/sink-error.ts';
import { applySchemaChangeOnce, type AppliedSchemaChange } from './apply-schema-change.ts';
import type { SchemaChangeContext } from './plan-schema-change.ts';
import { routedTableKey, type RoutedChange } from './routed-change.ts';
import { APPLIED_FIGURE, OUTCOMES_FIGURE, SKIPPED_FIGURE } from './schema-change-figures.ts';
import { RowOpBuilder, type BuilderColumn } from './row-op-builder.ts';
import type { RowOp } from './row-op.ts';
import type { SchemaChangeSession, SinkSchemaDialect, SinkTableRef } from './sink-schema-dialect.ts';
import { StatementsInFlight } from './statements-in-flight.ts';

/** A sink table as a dialect writes it (PostgresTable, MySqlTable fit). */
export interface PipelineTable {
  readonly name: string;
  readonly columns: readonly BuilderColumn[];
  readonly key: readonly BuilderColumn[];
}

/**
 * One checkpoint's transaction at a time, as a dialect runs it (PostgreSQL's prepared
 * transactions, MySQL's XA). Calls come one at a time, in order.
 */
export interface PipelineTransactions<S, C> {
  /** Runs a statement in the open transaction, beginning one if none is open. */
  run(statement: S): Promise<void>;
  /** Prepares the open transaction as the checkpoint's; none when nothing was written since the last. */
  prepare(checkpointId: number): Promise<C[]>;
  /** After a prepare, outside the order of statements: until another session can commit them. */
  prepared?(committables: readonly C[]): Promise<void>;
  /** Ends the sessions; `busy`: statements are in flight (one may wait for a lock only a recovery ends). */
  abort(busy: boolean): Promise<void>;
  close(): Promise<void>;
}

/** What the pipeline writer needs of a database besides its transactions. */
export interface PipelineWriterDialect<Tbl extends PipelineTable, S extends { readonly ops: readonly RowOp[] }> {
  /** The sink, for errors: server, database, the sink's name. */
  readonly target: string;
  readonly schemaDialect: SinkSchemaDialect;
  /** On a connection of its own (DDL must not run in the checkpoint's transaction). */
  readonly schemaSession: SchemaChangeSession;
  /** The table with its primary key as its key, read from the catalog on the schema session's connection. */
  describe(ref: SinkTableRef, primaryKey: readonly string[]): Promise<Tbl>;
  statements(table: Tbl, ops: readonly RowOp[]): S[];
  fits(type: string, value: unknown): boolean;
  /** The error for a statement the database refused or failed (names the table and, for a refusal, the record). */
  failure(table: Tbl, statement: S, error: unknown): Error;
  /** Releases the schema session's connection. */
  end(): Promise<void>;
}

export interface PipelineWriterSetup {
  readonly behavior: SchemaChangeContext['behavior'];
  readonly filter?: SchemaChangeContext['filter'];
  readonly batchSize: number;
  readonly maxInFlight: number;
  /** Told of each schema change applied (or skipped), for logs and the dashboard. */
  readonly onSchemaChange?: (table: string, change: RoutedChange, applied: AppliedSchemaChange) => void;
}

interface TableWrites<Tbl> {
  readonly table: Tbl;
  readonly builder: RowOpBuilder;
}

/**
 * A pipeline's database sink writer: rows of many tables in one transaction per checkpoint
 * (upserts by the table's primary key, deletes by it), and schema changes applied between them.
 * The sink holds a change back until the transactions with its table's earlier rows are committed
 * (SchemaChangeHold), so when one arrives here the DDL meets no lock of ours on its table.
 *
 * Everything the writer does runs as tasks in one order: a batch's statements are built when its
 * turn comes, after the changes before it, because how a table's rows are written (its columns)
 * is known only once its DDL ran; a change's table is read from the catalog again before its next
 * rows. The first failure is kept and fails the writer (ready, prepareCommit).
 */
export class PipelineSinkWriter<Tbl extends PipelineTable, S extends { readonly ops: readonly RowOp[] }, C> implements PrecommittingSinkWriter<RoutedChange, C> {
  readonly #d: PipelineWriterDialect<Tbl, S>;
  readonly #txns: PipelineTransactions<S, C>;
  readonly #s: PipelineWriterSetup;
  readonly #inFlight: StatementsInFlight;
  #batch: RoutedChange[] = [];
  #last: Promise<void> = Promise.resolve();
  /** Described tables by key; a schema change drops its table's entry. */
  readonly #tables = new Map<string, TableWrites<Tbl>>();
  /** Per source table, what became of its last schema change here and the change's source time (the pipeline view's). */
  readonly #outcomes = new Map<string, { readonly applied: boolean; readonly at: number }>();

  constructor(dialect: PipelineWriterDialect<Tbl, S>, transactions: PipelineTransactions<S, C>, setup: PipelineWriterSetup) {
    this.#d = dialect;
    this.#txns = transactions;
    this.#s = setup;
    this.#inFlight = new StatementsInFlight(setup.maxInFlight);
  }

  write(record: RoutedChange): void {
    if (record.op === 'ddl') {
      this.#sendBatch();
      this.#queue(() => this.#applyChange(record));
      return;
    }
    this.#batch.push(record);
    if (this.#batch.length >= this.#s.batchSize) this.#sendBatch();
  }

  ready(): Promise<void> | undefined {
    return this.#inFlight.ready();
  }

  /**
   * `schema_change_applied:<source table>` or `schema_change_skipped:<source table>` = the source
   * time of its last schema change this writer handled: applied (or found applied before a
   * failover, or the table already had it), or left out (the behaviour, include/exclude, a
   * refusal try_evolve tolerates). `schema_change_outcomes` says the writer reports them.
   */
  metrics(): Record<string, number> {
    const out: Record<string, number> = { [OUTCOMES_FIGURE]: this.#outcomes.size };
    for (const [source, o] of this.#outcomes) out[`${o.applied ? APPLIED_FIGURE : SKIPPED_FIGURE}:${source}`] = o.at;
    return out;
  }

  flush(): void {
    this.#sendBatch();
  }

  prepareCommit(checkpointId: number): Promise<C[]> {
    this.#sendBatch();
    let committables: C[] = [];
    this.#queue(async () => {
      committables = await this.#txns.prepare(checkpointId);
    });
    return this.#last.then(async () => {
      if (this.#inFlight.failure) throw await this.#inFlight.failure;
      await this.#txns.prepared?.(committables);
      return committables;
    });
  }

  async close(): Promise<void> {
    await this.#last;
    await this.#txns.close();
    await this.#d.end();
  }

  async abort(): Promise<void> {
    const busy = this.#inFlight.busy;
    // Tasks still queued must not run: one would begin a transaction after the abort, whose
    // session nobody ends, holding its rows' locks against the next attempt.
    this.#inFlight.fail(Promise.resolve(new Error(`${this.#d.target}: the writer was aborted`)));
    await this.#txns.abort(busy);
    await this.#last.catch(() => {});
    await this.#d.end();
  }

  #queue(task: () => Promise<void>): void {
    this.#last = this.#inFlight.queue(this.#last, task, async (e) => (e instanceof Error ? e : new Error(String(e))));
  }

  #sendBatch(): void {
    if (this.#batch.length === 0) return;
    const batch = this.#batch;
    this.#batch = [];
    this.#queue(async () => {
      for (const records of byTable(batch)) await this.#writeRows(records);
    });
  }

  async #writeRows(records: readonly RoutedChange[]): Promise<void> {
    const t = await this.#table(records[0]!);
    const ops: RowOp[] = [];
    for (const r of records) t.builder.opsOf(r, ops);
    for (const statement of this.#d.statements(t.table, ops)) {
      try {
        await this.#txns.run(statement);
      } catch (e) {
        throw this.#d.failure(t.table, statement, e);
      }
    }
  }

  async #table(record: RoutedChange): Promise<TableWrites<Tbl>> {
    const key = routedTableKey(record);
    const known = this.#tables.get(key);
    if (known) return known;
    const schema = await this.#d.schemaSession.readSchema(record.table);
    if (!schema) {
      throw new SinkError('TARGET_MISMATCH', this.#d.target, `table ${key} does not exist for the rows of ${record.sourceTable}: its create.table did not come first, was excluded by include/exclude.schema.changes, or a drop.table removed it`);
    }
    if (schema.primaryKey.length === 0) {
      throw new SinkError('TARGET_UNSUPPORTED', this.#d.target, `table ${key} has no primary key: a pipeline sink writes rows by their key (give the table one, or the transform primary-keys)`);
    }
    const table = await this.#d.describe(record.table, schema.primaryKey);
    const writes = { table, builder: new RowOpBuilder({ table, mode: 'changelog', target: this.#d.target, fits: this.#d.fits }) };
    this.#tables.set(key, writes);
    return writes;
  }

  async #applyChange(record: RoutedChange): Promise<void> {
    const key = routedTableKey(record);
    const change = record.schemaChange;
    if (!change) throw new SinkError('TARGET_MISMATCH', this.#d.target, `table ${key}: a ddl record from ${record.sourceTable} without its schema change`);
    const ctx: SchemaChangeContext = { target: this.#d.target, table: key, behavior: this.#s.behavior, ...(this.#s.filter ? { filter: this.#s.filter } : {}) };
    const applied = await applySchemaChangeOnce(this.#d.schemaSession, this.#d.schemaDialect, record.table, change.change, change.id, ctx);
    this.#tables.delete(key);
    if (record.ts !== undefined) this.#outcomes.set(record.sourceTable, { applied: !applied.excluded && !applied.refused, at: record.ts });
    this.#s.onSchemaChange?.(key, record, applied);
  }
}

/** A batch's records by sink table, each table's in their order (tables in order of first record). */
function byTable(batch: readonly RoutedChange[]): RoutedChange[][] {
  const tables = new Map<string, RoutedChange[]>();
  for (const r of batch) {
    const key = routedTableKey(r);
    const list = tables.get(key);
    if (list) list.push(r);
    else tables.set(key, [r]);
  }
  return [...tables.values()];
}
