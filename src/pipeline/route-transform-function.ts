import { createHash } from 'node:crypto';
import type { Collector, KeyedContext, KeyedProcessFunction, RuntimeContext } from '../api/functions.ts';
import type { ValueState } from '../api/state.ts';
import { ValueStateDescriptor } from '../api/state-descriptors.ts';
import type { CdcChangeRecord, RowImage } from '../connectors/cdc/change-record.ts';
import type { SinkTableRef } from '../connectors/database-sink/sink-schema-dialect.ts';
import type { SinkSchemaChange, SinkTableSchema } from '../connectors/database-sink/sink-table-schema.ts';
import { dataEventType, type EvaluationContext, type TransformRowMeta } from './expression/index.ts';
import type { TransformDefinition } from './pipeline-definition.ts';
import type { PipelineChange } from './pipeline-change.ts';
import { ROUTE_FIGURE, SCHEMA_CHANGE_FIGURE } from './pipeline-figures.ts';
import { columnsOfRecord, evolveSourceColumns, sinkChangesOf } from './schema-change-mapping.ts';
import type { SourceColumn, SourceTableCatalog } from './source-table-catalog.ts';
import { compileTableTransform, type SourceDialect, type TableTransform } from './table-transform.ts';
import type { TableRouter } from './table-router.ts';
import { firstMatchingTransform } from './transform-rules.ts';
import { UnknownSourceTableError } from './unknown-source-table-error.ts';

export interface RouteTransformOptions {
  readonly router: TableRouter;
  readonly transforms: readonly TransformDefinition[];
  readonly dialect: SourceDialect;
  /** PostgreSQL's database: the metadata column __namespace_name__ (null for MySQL, whose tables are db.table). */
  readonly namespace: string | null;
  readonly evaluation: EvaluationContext;
  /** Made at open, closed when the tables are read. */
  readonly catalog: () => SourceTableCatalog;
}

/** A source table's schema as the pipeline keeps it in keyed state (the key is the table's id). */
export interface StoredSourceSchema {
  readonly columns: readonly SourceColumn[];
  readonly primaryKey: readonly string[];
}

interface TableState {
  readonly id: string;
  readonly columns: readonly SourceColumn[];
  readonly primaryKey: readonly string[];
  readonly transform: TableTransform;
  readonly sinks: readonly SinkTableRef[];
}

/**
 * The pipeline's transform and route, keyed by source table: each source change becomes a change
 * of each sink table its table routes to (TableRouter), projected and filtered by the first
 * transform rule matching its table. A table's schema is kept in keyed state, so a restore
 * continues from the schema the checkpoint's log position had and a schema change replayed after
 * it maps to the same sink changes with the same ids; a table the state does not hold yet takes
 * its schema from the catalog, read at open. Without keyed state (tests), the catalog's schemas
 * alone. Before a (source table, sink table) pair's first change in this subtask's run goes a
 * `create.table` with the transformed schema; each source schema change becomes one ddl change
 * per resulting sink change, with an id from its log position, its index and the pair.
 *
 * The filter decides per image: an update whose before image passes and after image does not
 * becomes a delete at the sink, the reverse an insert (so a sink table holds exactly the rows
 * that pass; Flink CDC drops such updates, leaving the row behind).
 */
export class RouteTransformFunction implements KeyedProcessFunction<string, CdcChangeRecord, PipelineChange> {
  readonly #o: RouteTransformOptions;
  readonly #tables = new Map<string, TableState>();
  #stored: ValueState<StoredSourceSchema> | undefined;
  /** Tables whose in-memory state was set from (or stored into) the keyed state in this run: from then on both change together. */
  readonly #synced = new Set<string>();
  /** `sourceTable>sinkTable` pairs whose create.table went out in this run. */
  readonly #announced = new Set<string>();
  /** Per source table, its last schema change in this run (the dashboard's and the progress line's): kind and source time. */
  readonly #lastChange = new Map<string, { readonly kind: string; readonly at: number }>();

  constructor(options: RouteTransformOptions) {
    this.#o = options;
  }

  async open(ctx?: RuntimeContext): Promise<void> {
    this.#stored = ctx?.getState(new ValueStateDescriptor<StoredSourceSchema>('source-table-schema'));
    const catalog = this.#o.catalog();
    try {
      for (const t of await catalog.readTables()) this.#tables.set(t.id, this.#state(t.id, t.columns, t.primaryKey));
    } finally {
      await catalog.close();
    }
  }

  /**
   * Figures for the pipeline view (rest/pipeline-view.ts): `pipeline_route:<source table>><sink
   * table>` = 1 for each route of a table known here, and `pipeline_schema_change_<kind>:<source
   * table>` = the source time (ms) of the table's last schema change in this subtask's run.
   */
  metrics(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const t of this.#tables.values()) for (const s of t.sinks) out[`${ROUTE_FIGURE}:${pairOf(t.id, s)}`] = 1;
    for (const [id, c] of this.#lastChange) out[`${SCHEMA_CHANGE_FIGURE}${c.kind.replace(/\./g, '_')}:${id}`] = c.at;
    return out;
  }

  processElement(record: CdcChangeRecord, _ctx: KeyedContext<string> | undefined, out: Collector<PipelineChange>): void {
    if (record.op === 'ddl') {
      this.#sync(`${record.schemaChange!.schema.db}.${record.schemaChange!.schema.table}`);
      return this.#schemaChange(record, out);
    }
    const id = tableIdOf(record);
    this.#sync(id);
    const t = this.#tables.get(id);
    if (!t) throw new UnknownSourceTableError(id, [...this.#tables.keys()]);
    const change = this.#change(t, record);
    if (!change) return;
    const { op, before: b, after: a } = change;
    const unchanged = record.unchangedColumns?.filter((c) => a !== null && c in a);
    for (const table of t.sinks) {
      this.#announce(t, table, record, out);
      out.collect({ table, sourceTable: id, op, before: b, after: a, ...(unchanged?.length ? { unchangedColumns: unchanged } : {}), ts: record.source.ts, snapshot: record.source.snapshot });
    }
  }

  /**
   * The sink change of a source change through the filter, per image. A before image the source
   * gave only in part (PostgreSQL without REPLICA IDENTITY FULL: an update without one, a delete
   * with the key alone) cannot be filtered: it counts as in the sink table, so a delete, or an
   * update whose after image leaves the filter, deletes by key (a row that was never written is
   * deleted to no effect); its other columns are null.
   */
  #change(t: TableState, record: CdcChangeRecord): { op: PipelineChange['op']; before: RowImage | null; after: RowImage | null } | null {
    const u = record.op === 'u';
    const unknown = (u || record.op === 'd') && (record.before === null || t.columns.some((c) => !(c.name in record.before!)));
    const before = record.before && this.#project(t, record.before, record, u ? '-U' : '-D', unknown);
    const after = record.after && this.#project(t, record.after, record, u ? '+U' : '+I');
    if (!u) return before || after ? { op: record.op, before, after } : null;
    if (after && (before || unknown)) return { op: 'u', before, after };
    if (after) return { op: 'c', before: null, after: this.#project(t, record.after!, record, '+I') };
    // An update that leaves the filter is a delete: its before image as a delete sees it.
    if (before) return { op: 'd', before: this.#project(t, record.before!, record, '-D', unknown), after: null };
    return unknown ? { op: 'd', before: this.#project(t, record.after!, record, '-D', true), after: null } : null;
  }

  /** Once per table and run: the keyed state's schema wins over the catalog's; a table without one stores the catalog's. */
  #sync(id: string): void {
    if (!this.#stored || this.#synced.has(id)) return;
    this.#synced.add(id);
    const stored = this.#stored.value();
    if (stored) this.#tables.set(id, this.#state(id, stored.columns, stored.primaryKey));
    else this.#store(this.#tables.get(id));
  }

  #store(t: TableState | undefined): void {
    if (!this.#stored) return;
    if (t) this.#stored.update({ columns: t.columns, primaryKey: t.primaryKey });
    else this.#stored.clear();
  }

  #project(t: TableState, row: RowImage, record: CdcChangeRecord, type: string, unfiltered = false): RowImage | null {
    if (t.transform.passThrough) return row;
    const table = record.source.table;
    const schema = (record.source as { schema?: string; db?: string }).schema ?? (record.source as { db?: string }).db ?? null;
    const meta: TransformRowMeta = { namespaceName: this.#o.namespace, schemaName: schema, tableName: table, dataEventType: type };
    if (!unfiltered) return t.transform.apply(row, meta);
    const whole: RowImage = {};
    for (const c of t.columns) whole[c.name] = c.name in row ? row[c.name] : null;
    return t.transform.project(whole, meta);
  }

  #schemaChange(record: CdcChangeRecord, out: Collector<PipelineChange>): void {
    const body = record.schemaChange!;
    const id = `${body.schema.db}.${body.schema.table}`;
    const position = positionOf(record.source);
    let t = this.#tables.get(id);
    const kind = body.changes.at(-1)?.kind ?? (t ? undefined : 'create.table');
    if (kind) this.#lastChange.set(id, { kind, at: record.source.ts });
    if (!t) {
      // A table created (or first matched) while the pipeline runs: its columns are the record's,
      // its key the record's where the source read it from the catalog (a table added later).
      t = this.#state(id, columnsOfRecord(body.schema.columns, []), body.schema.primaryKey ?? []);
      this.#tables.set(id, t);
      this.#store(t);
      for (const table of t.sinks) this.#announce(t, table, record, out);
      return;
    }
    body.changes.forEach((change, i) => {
      if (change.kind === 'drop.table') {
        for (const table of t!.sinks) this.#emitDdl(t!, table, { kind: 'drop.table' }, t!.transform.schema, `${position}#${i}`, record, out);
        this.#forget(t!);
        return;
      }
      const columns = change.kind === 'create.table' ? columnsOfRecord(body.schema.columns, t!.columns) : evolveSourceColumns(t!.columns, change);
      const primaryKey = t!.primaryKey.filter((k) => columns.some((c) => c.name === k)).map((k) => (change.kind === 'rename.column' && k === change.from ? change.to : k));
      const next = this.#state(id, columns, primaryKey);
      const sinkChanges = sinkChangesOf(change, t!.transform.schema, next.transform.schema);
      this.#tables.set(id, next);
      for (const table of next.sinks) {
        // A pair's first record in this run: the table as it was before the change, then the change (a sink with the table plans the create to nothing).
        if (t!.sinks.some((x) => x.namespace === table.namespace && x.table === table.table)) this.#announce(t!, table, record, out);
        if (!this.#announced.has(pairOf(id, table))) this.#announce(next, table, record, out);
        else sinkChanges.forEach((c, j) => this.#emitDdl(next, table, c, next.transform.schema, `${position}#${i}.${j}`, record, out));
      }
      t = next;
    });
    // The record's columns are the log's truth after the statement (types as its parser read them).
    const final = this.#tables.get(id);
    if (final) this.#tables.set(id, this.#state(id, columnsOfRecord(body.schema.columns, final.columns), final.primaryKey));
    this.#store(this.#tables.get(id));
  }

  #forget(t: TableState): void {
    this.#tables.delete(t.id);
    for (const table of t.sinks) this.#announced.delete(pairOf(t.id, table));
  }

  #announce(t: TableState, table: SinkTableRef, record: CdcChangeRecord, out: Collector<PipelineChange>): void {
    const pair = pairOf(t.id, table);
    if (this.#announced.has(pair)) return;
    this.#announced.add(pair);
    const schema = t.transform.schema;
    this.#emitDdl(t, table, { kind: 'create.table', schema }, schema, `create ${schemaDigest(schema)}`, record, out);
  }

  #emitDdl(t: TableState, table: SinkTableRef, change: SinkSchemaChange, schema: SinkTableSchema, at: string, record: CdcChangeRecord, out: Collector<PipelineChange>): void {
    const id = `${at} ${pairOf(t.id, table)}`;
    out.collect({ table, sourceTable: t.id, op: 'ddl', before: null, after: null, schemaChange: { change, schema, id }, ts: record.source.ts, snapshot: record.source.snapshot });
  }

  #state(id: string, columns: readonly SourceColumn[], primaryKey: readonly string[], borrow = true): TableState {
    const index = firstMatchingTransform(this.#o.transforms, id);
    const rule = index === undefined ? undefined : { index, def: this.#o.transforms[index]! };
    const transform = compileTableTransform(columns, primaryKey, rule, this.#o.dialect, this.#o.evaluation);
    const sinks = this.#o.router.route(id).map(sinkTableRef);
    // A table without a key of its own or its rule's takes one from a table routed to the same sink table (a shard created later).
    if (borrow && transform.schema.primaryKey.length === 0 && !rule?.def.primaryKeys) {
      const sibling = [...this.#tables.values()].find((s) => s.id !== id && s.sinks.some((x) => sinks.some((y) => x.namespace === y.namespace && x.table === y.table)) && s.primaryKey.length > 0);
      if (sibling && sibling.primaryKey.every((k) => columns.some((c) => c.name === k))) return this.#state(id, columns, sibling.primaryKey, false);
    }
    return { id, columns, primaryKey, transform, sinks };
  }
}

/** 'db.table' (MySQL) or 'schema.table' (PostgreSQL) of a change. */
export function tableIdOf(record: CdcChangeRecord): string {
  const s = record.source as { schema?: string; db?: string; table: string };
  return `${s.schema ?? s.db}.${s.table}`;
}

/** A sink table id 'a.b' (or 'a.b.c': the namespace is all but the last part). */
export function sinkTableRef(id: string): SinkTableRef {
  const dot = id.lastIndexOf('.');
  return dot < 0 ? { namespace: '', table: id } : { namespace: id.slice(0, dot), table: id.slice(dot + 1) };
}

function pairOf(sourceTable: string, table: SinkTableRef): string {
  return `${sourceTable}>${table.namespace}.${table.table}`;
}

/** Where a change is in its source's log: MySQL's binlog file and position (and GTID), PostgreSQL's LSN. */
export function positionOf(source: object): string {
  const s = source as Record<string, unknown>;
  const parts = ['file', 'pos', 'lsn', 'changeLsn', 'index'].filter((k) => s[k] !== undefined).map((k) => String(s[k]));
  return parts.length > 0 ? parts.join(':') : `ts ${String(s['ts'])}`;
}

function schemaDigest(schema: SinkTableSchema): string {
  return createHash('sha256').update(JSON.stringify(schema)).digest('hex').slice(0, 16);
}
