// The pipeline view (GET /jobs/:id/pipeline, the dashboard's pipeline card, the progress line) from
// the figures its operators report: the CDC readers' per-table counts summed over subtasks, the
// transform's routes and last schema changes merged over subtasks, a sink table's held schema
// change making its source tables' last change "held". The held figure of SchemaChangeHold itself.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pipelineProgress } from '../../src/cli/progress-line.ts';
import { pipelineViewOf } from '../../src/rest/pipeline-view.ts';
import type { TaskMetrics } from '../../src/rpc/job-master-gateway.ts';
import { SchemaChangeHold } from '../../src/worker/sink/schema-change-hold.ts';

const report = (vertexId: string, subtask: number, reportedAt: number, parts: Partial<TaskMetrics>) => ({ vertexId, subtask, reportedAt, ...parts }) as unknown as TaskMetrics;
const operator = (uid: string, figures: Record<string, number>) => ({ uid, name: uid, numLateRecordsDropped: 0, currentOutputWatermark: null, figures });

test('pipeline view: per source table its snapshot rows, changes, sink tables and last schema change, held while its sink table holds one', () => {
  const tasks = [
    report('src', 0, 1000, { source: { 'cdc_table_snapshot_rows:shop.orders_1': 16, 'cdc_table_inserts:shop.orders_1': 3, 'cdc_table_updates:shop.orders_1': 2, 'cdc_table_snapshot_rows:shop.customers': 2, binlog_events: 9 } }),
    report('src', 1, 1500, { source: { 'cdc_table_snapshot_rows:shop.orders_2': 16, 'cdc_table_inserts:shop.orders_1': 1, 'cdc_table_deletes:shop.orders_2': 4 } }),
    report('tr', 0, 1200, {
      operators: [
        operator('pipeline-transform-route', {
          'pipeline_route:shop.orders_1>shop.orders': 1,
          'pipeline_route:shop.orders_2>shop.orders': 1,
          'pipeline_route:shop.customers>.clients': 1,
          'pipeline_route:shop.customers>archive.clients': 1,
          'pipeline_schema_change_add_column:shop.orders_1': 5000,
        }),
        operator('pipeline-sink', { 'schema_changes_held:shop.orders': 1 }),
      ],
    }),
    // Another subtask knows the same routes, and an older change of orders_1 (before a rescale).
    report('tr', 1, 1100, {
      operators: [
        operator('pipeline-transform-route', { 'pipeline_route:shop.orders_1>shop.orders': 1, 'pipeline_schema_change_drop_column:shop.orders_1': 4000, 'pipeline_schema_change_alter_column_type:shop.customers': 4500 }),
        operator('pipeline-sink', {}),
      ],
    }),
  ];
  const view = pipelineViewOf(tasks, { src: { snapshot_tables: 3, snapshot_tables_done: 2, snapshot_rows_read: 34, snapshot_done: 0 } });
  assert.deepEqual(view, {
    'reported-at': 1500,
    snapshot: { tables: 3, 'tables-done': 2, rows: 34, done: false },
    tables: [
      { table: 'shop.customers', 'snapshot-rows': 2, inserts: 0, updates: 0, deletes: 0, changes: 0, 'sink-tables': ['archive.clients', 'clients'], 'last-schema-change': { kind: 'alter.column.type', at: 4500, state: 'sent' } },
      { table: 'shop.orders_1', 'snapshot-rows': 16, inserts: 4, updates: 2, deletes: 0, changes: 6, 'sink-tables': ['shop.orders'], 'last-schema-change': { kind: 'add.column', at: 5000, state: 'held' } },
      { table: 'shop.orders_2', 'snapshot-rows': 16, inserts: 0, updates: 0, deletes: 4, changes: 4, 'sink-tables': ['shop.orders'], 'last-schema-change': null },
    ],
  });
  // A finished snapshot counts every table; no enumerator, no snapshot.
  assert.deepEqual(pipelineViewOf([], { src: { snapshot_tables: 3, snapshot_rows_read: 34, snapshot_done: 1 } }).snapshot, { tables: 3, 'tables-done': 3, rows: 34, done: true });
  assert.equal(pipelineViewOf([], {}).snapshot, null);

  // A database sink's writer says what it did with each source table's last change: older outcomes do not count.
  const sink = (figures: Record<string, number>) => report('sink', 0, 1600, { operators: [operator('pipeline-sink', { schema_change_outcomes: Object.keys(figures).length, ...figures })] });
  const stateOf = (figures: Record<string, number>, table = 'shop.customers') => pipelineViewOf([...tasks, sink(figures)], {}).tables.find((t) => t.table === table)?.['last-schema-change']?.state;
  assert.equal(stateOf({ 'schema_change_applied:shop.customers': 4500 }), 'applied');
  assert.equal(stateOf({ 'schema_change_skipped:shop.customers': 4500 }), 'skipped');
  assert.equal(stateOf({ 'schema_change_applied:shop.customers': 4000 }), 'pending');
  assert.equal(stateOf({}), 'pending');
  // Held wins: the sink table's rows wait behind the held change, whoever's it is.
  assert.equal(stateOf({ 'schema_change_applied:shop.orders_1': 5000 }, 'shop.orders_1'), 'held');

  const line = pipelineProgress(view, 12.4);
  assert.match(line, /^ {2}tables 2\/3 snapshotted \(snapshot running\), 34 rows {2}changes 12\/s \(10\) {2}last schema change add\.column shop\.orders_1 at \d\d:\d\d:\d\d held$/);
});

test('SchemaChangeHold reports per holding table how many schema changes it holds', () => {
  type R = { table: string; ddl: boolean };
  const hold = new SchemaChangeHold<R>({ tableOf: (r) => r.table, holdsBack: (r) => r.ddl });
  assert.equal(hold.offer({ table: 'a', ddl: false }), true);
  assert.deepEqual(hold.figures(), {});
  hold.offer({ table: 'a', ddl: true });
  hold.offer({ table: 'a', ddl: false });
  hold.offer({ table: 'a', ddl: true });
  hold.offer({ table: 'b', ddl: true });
  assert.deepEqual(hold.figures(), { 'schema_changes_held:a': 2, 'schema_changes_held:b': 1 });
  hold.cut(7);
  hold.complete(7);
  // The first change of a released; its second starts a new hold.
  assert.deepEqual(hold.figures(), { 'schema_changes_held:a': 1 });
});
