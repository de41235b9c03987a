// The pipeline database sinks (PostgreSQL, MariaDB) under every schema.change.behavior with each
// kind of schema change: a table created from its create.table, one row, the change, one row in
// the source's new shape; the target's catalog (column names, nullability, types) and rows after
// it as Flink CDC's behaviours have them. Also include/exclude, and a missing table's error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RoutedChange } from '../../../src/connectors/database-sink/routed-change.ts';
import { SCHEMA_CHANGE_BEHAVIORS, type SchemaChangeBehavior } from '../../../src/connectors/database-sink/schema-change-behavior.ts';
import type { SinkSchemaChange, SinkTableSchema } from '../../../src/connectors/database-sink/sink-table-schema.ts';
import { evolveSchema } from '../../../src/connectors/database-sink/sink-table-schema.ts';
import { SchemaChangeRefusedError } from '../../../src/connectors/database-sink/schema-change-refused-error.ts';
import { RecordRefusedError } from '../../../src/connectors/database-sink/record-refused-error.ts';
import { SinkError } from '../../../src/api/sink-error.ts';
import { sinkContext } from '../../fixtures/sink-commit-idempotence.ts';
import { describeOnTargets, type PipelineTarget, type SinkSettings } from './pipeline-sink-targets.ts';

const BASE: SinkTableSchema = {
  columns: [
    { name: 'id', type: { kind: 'BIGINT' }, nullable: false },
    { name: 'name', type: { kind: 'VARCHAR', length: 40 }, nullable: false },
    { name: 'qty', type: { kind: 'INT' }, nullable: true },
  ],
  primaryKey: ['id'],
};

type Kind = 'add.column' | 'drop.column' | 'rename.column' | 'alter.column.type' | 'truncate.table' | 'drop.table';
const CHANGES: Record<Kind, SinkSchemaChange> = {
  'add.column': { kind: 'add.column', column: { name: 'note', type: { kind: 'VARCHAR', length: 20 }, nullable: true } },
  'drop.column': { kind: 'drop.column', column: 'name' },
  'rename.column': { kind: 'rename.column', from: 'name', to: 'title' },
  'alter.column.type': { kind: 'alter.column.type', column: 'qty', type: { kind: 'BIGINT' }, nullable: true },
  'truncate.table': { kind: 'truncate.table' },
  'drop.table': { kind: 'drop.table' },
};
/** The source's row after the change (its new shape); none after a drop.table. */
const ROW_AFTER: Record<Kind, Record<string, unknown> | undefined> = {
  'add.column': { id: 2, name: 'b', qty: 2, note: 'n2' },
  'drop.column': { id: 2, qty: 2 },
  'rename.column': { id: 2, title: 'b', qty: 2 },
  'alter.column.type': { id: 2, name: 'b', qty: 5_000_000_000 },
  'truncate.table': { id: 2, name: 'b', qty: 2 },
  'drop.table': undefined,
};

/** What each behaviour leaves: columns as `name` / `name?` (nullable) and the type of qty, or 'gone'; the rows after; or the error. */
interface Expected {
  readonly columns?: string;
  readonly qty?: string;
  readonly rows?: readonly string[];
  readonly error?: 'refused-change' | 'refused-row';
}
const BASE_COLS = 'id,name,qty?';
function expected(behavior: SchemaChangeBehavior, kind: Kind): Expected {
  if (behavior === 'exception') return { error: 'refused-change', columns: BASE_COLS };
  const applies = behavior === 'evolve' || behavior === 'try_evolve';
  switch (kind) {
    case 'add.column':
      return behavior === 'ignore' ? { columns: BASE_COLS, rows: ['1,a,1', '2,b,2'] } : { columns: 'id,name,qty?,note?', rows: ['1,a,1,null', '2,b,2,n2'] };
    case 'drop.column':
      if (behavior === 'ignore') return { columns: BASE_COLS, error: 'refused-row', rows: ['1,a,1'] };
      return applies ? { columns: 'id,qty?', rows: ['1,1', '2,2'] } : { columns: 'id,name?,qty?', rows: ['1,a,1', '2,null,2'] };
    case 'rename.column':
      if (behavior === 'ignore') return { columns: BASE_COLS, error: 'refused-row', rows: ['1,a,1'] };
      return applies ? { columns: 'id,title,qty?', rows: ['1,a,1', '2,b,2'] } : { columns: 'id,name?,qty?,title?', rows: ['1,a,1,null', '2,null,2,b'] };
    case 'alter.column.type':
      return behavior === 'ignore' ? { columns: BASE_COLS, qty: 'INT', error: 'refused-row', rows: ['1,a,1'] } : { columns: BASE_COLS, qty: 'BIGINT', rows: ['1,a,1', '2,b,5000000000'] };
    case 'truncate.table':
      return { columns: BASE_COLS, rows: applies ? ['2,b,2'] : ['1,a,1', '2,b,2'] };
    case 'drop.table':
      return applies ? { columns: 'gone' } : { columns: BASE_COLS, rows: ['1,a,1'] };
  }
}

const ref = (t: PipelineTarget, table: string) => ({ namespace: t.namespace, table });
const ddl = (t: PipelineTarget, table: string, change: SinkSchemaChange, schema: SinkTableSchema | undefined, id: string): RoutedChange => ({
  table: ref(t, table),
  sourceTable: `src.${table}`,
  op: 'ddl',
  before: null,
  after: null,
  schemaChange: { change, schema: schema ?? { columns: [], primaryKey: [] }, id },
});
const row = (t: PipelineTarget, table: string, after: Record<string, unknown>, op: RoutedChange['op'] = 'c'): RoutedChange => ({ table: ref(t, table), sourceTable: `src.${table}`, op, before: null, after });
const columnsOf = (s: SinkTableSchema | undefined) => (s ? s.columns.map((c) => `${c.name}${c.nullable ? '?' : ''}`).join(',') : 'gone');

/** Writes the records as one checkpoint and commits it; the writer's failure, if any. */
async function checkpointOf(sink: ReturnType<PipelineTarget['sink']>, ctx: ReturnType<typeof sinkContext>, id: number, records: readonly RoutedChange[]): Promise<unknown> {
  const writer = await sink.createWriter(ctx);
  const committer = await sink.createCommitter(ctx);
  try {
    for (const r of records) writer.write(r);
    await committer.commit(await writer.prepareCommit(id));
    await writer.close?.();
    return undefined;
  } catch (e) {
    await writer.abort?.();
    return e;
  } finally {
    await committer.close?.();
  }
}

describeOnTargets('pipeline database sinks: schema.change.behavior × change kind, on the target catalog', (targetName, target) => {
    test(`${targetName}: every behaviour on every kind`, async () => {
      const t = target();
      let n = 0;
      for (const behavior of SCHEMA_CHANGE_BEHAVIORS) {
        for (const kind of Object.keys(CHANGES) as Kind[]) {
          const table = `${behavior}_${kind.replaceAll('.', '_')}`;
          const what = `${t.name} ${behavior} ${kind}`;
          const settings: SinkSettings = { schemaChangeBehavior: behavior, transactionIdPrefix: `m${++n}` };
          const sink = t.sink(settings);
          const ctx = sinkContext({ uid: table });
          // The table's first records: its create.table and a row, committed (the hold's job in a job).
          assert.equal(await checkpointOf(sink, ctx, 1, [ddl(t, table, { kind: 'create.table', schema: BASE }, BASE, `${table}@0`), row(t, table, { id: 1, name: 'a', qty: 1 }, 'r')]), undefined, what);
          const change = CHANGES[kind];
          const after = ROW_AFTER[kind];
          const records = [ddl(t, table, change, evolveSchema(BASE, change), `${table}@1`), ...(after ? [row(t, table, after)] : [])];
          const failure = await checkpointOf(sink, ctx, 2, records);
          const want = expected(behavior, kind);
          if (want.error === 'refused-change') {
            assert.ok(failure instanceof SchemaChangeRefusedError, `${what}: ${String(failure)}`);
            assert.equal(failure.kind, kind);
            assert.match(failure.message, new RegExp(table));
          } else if (want.error === 'refused-row') {
            assert.ok(failure instanceof RecordRefusedError, `${what}: ${String(failure)}`);
            assert.match(failure.message, new RegExp(table));
          } else assert.equal(failure, undefined, `${what}: ${String(failure)}`);
          const schema = await t.readSchema(table);
          assert.equal(columnsOf(schema), want.columns, `${what}: columns`);
          if (want.qty) assert.deepEqual(schema!.columns.find((c) => c.name === 'qty')!.type, { kind: want.qty }, `${what}: type of qty`);
          if (want.rows) assert.deepEqual(await t.rows(table, schema!.columns.map((c) => c.name)), want.rows, `${what}: rows`);
          // The create.table is recorded once; the change once unless the behaviour refused it (exception).
          assert.deepEqual(await t.recordedChanges(table), want.error === 'refused-change' ? [`${table}@0`] : [`${table}@0`, `${table}@1`], `${what}: recorded`);
        }
      }
      assert.deepEqual(await t.prepared(), []);
    });

    test(`${targetName}: include/exclude.schema.changes choose the kinds applied; a table that was never created fails its rows naming it`, async () => {
      const t = target();
      const table = 'filtered';
      const sink = t.sink({ schemaChangeBehavior: 'evolve', schemaChangeFilter: { include: ['add.column', 'drop'], exclude: ['drop.table'] }, transactionIdPrefix: 'filt' });
      const ctx = sinkContext({ uid: table });
      const changes: SinkSchemaChange[] = [CHANGES['add.column'], CHANGES['rename.column'], { kind: 'drop.column', column: 'qty' }, CHANGES['drop.table']];
      let schema: SinkTableSchema | undefined = BASE;
      const records = [ddl(t, table, { kind: 'create.table', schema: BASE }, BASE, 'f@0')];
      changes.forEach((c, i) => records.push(ddl(t, table, c, (schema = evolveSchema(schema, c)), `f@${i + 1}`)));
      assert.equal(await checkpointOf(sink, ctx, 1, records), undefined);
      assert.equal(columnsOf(await t.readSchema(table)), 'id,name,note?', 'add and drop.column applied; rename and drop.table not');

      const missing = await checkpointOf(sink, ctx, 2, [row(t, 'never_created', { id: 1 })]);
      assert.ok(missing instanceof SinkError && missing.code === 'TARGET_MISMATCH', String(missing));
      assert.match(missing.message, /never_created/);
      assert.match(missing.message, /src\.never_created/);
    });
});
