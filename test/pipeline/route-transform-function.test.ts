// The pipeline's transform+route operator with a fake catalog: sharded tables merged into one sink
// table, a computed column and a filter (per image: an update leaving the filter is a delete),
// create.table before a pair's first change, schema changes mapped through the projection with
// ids from the log position, a table created mid-run, and a table nobody announced.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CdcChangeRecord } from '../../src/connectors/cdc/change-record.ts';
import type { CdcSchemaChange } from '../../src/connectors/cdc/schema-change.ts';
import { checkPipelineText } from '../../src/pipeline/pipeline-validator.ts';
import type { PipelineChange } from '../../src/pipeline/pipeline-change.ts';
import { RouteTransformFunction } from '../../src/pipeline/route-transform-function.ts';
import type { SourceTableSchema } from '../../src/pipeline/source-table-catalog.ts';
import { TableRouter } from '../../src/pipeline/table-router.ts';
import { UnknownSourceTableError } from '../../src/pipeline/unknown-source-table-error.ts';

const YAML = `source:
  type: mariadb
  hostname: h
  username: u
  tables: shop.\\.*
sink:
  type: print
route:
  - source-table: shop.orders_\\d+
    sink-table: shop.orders
transform:
  - source-table: shop.orders_\\d+
    projection: \\*, price * quantity AS total, __table_name__ AS shard
    filter: status <> 'test' AND quantity > 0
    primary-keys: shard, id
`;

const ORDERS: SourceTableSchema['columns'] = [
  { name: 'id', type: 'int(11)', nullable: false },
  { name: 'status', type: 'varchar(10)', nullable: false },
  { name: 'price', type: 'decimal(10,2)', nullable: false },
  { name: 'quantity', type: 'int(11)', nullable: false },
];

async function operator(tables: SourceTableSchema[]): Promise<{ fn: RouteTransformFunction; out: PipelineChange[]; closed: () => boolean }> {
  const { definition } = checkPipelineText('p.yaml', YAML);
  assert.ok(definition);
  let closed = false;
  const fn = new RouteTransformFunction({
    router: new TableRouter(definition.routes, definition.pipeline.routeMode),
    transforms: definition.transforms,
    dialect: 'mysql',
    namespace: null,
    evaluation: { clock: () => 0, timeZone: 'UTC' },
    catalog: () => ({ readTables: async () => tables, close: async () => void (closed = true) }),
  });
  await fn.open();
  return { fn, out: [], closed: () => closed };
}

function row(table: string, op: 'r' | 'c' | 'u' | 'd', before: Record<string, unknown> | null, after: Record<string, unknown> | null, pos = 100): CdcChangeRecord {
  return { op, before, after, source: { db: 'shop', table, file: 'binlog.000001', pos, row: 0, ts: 1000 + pos, snapshot: op === 'r' } as CdcChangeRecord['source'] };
}

function ddl(table: string, changes: CdcSchemaChange[], columns: { name: string; type: string }[], pos: number): CdcChangeRecord {
  return { op: 'ddl', before: null, after: null, source: { db: 'shop', table, file: 'binlog.000001', pos, ts: 5000, snapshot: false } as CdcChangeRecord['source'], schemaChange: { changes, schema: { db: 'shop', table, version: 1, columns } } };
}

function feed(fn: RouteTransformFunction, out: PipelineChange[], ...records: CdcChangeRecord[]): void {
  for (const r of records) fn.processElement(r, undefined, { collect: (c) => out.push(c) });
}

const o = (id: number, status: string, price: string, quantity: number) => ({ id, status, price, quantity });

test('two shards into one sink table: a create.table per pair first, then rows projected (computed total, shard) and filtered', async () => {
  const { fn, out, closed } = await operator([
    { id: 'shop.orders_1', columns: ORDERS, primaryKey: ['id'] },
    { id: 'shop.orders_2', columns: ORDERS, primaryKey: ['id'] },
  ]);
  assert.equal(closed(), true, 'the catalog is closed once read');
  feed(fn, out, row('orders_1', 'r', null, o(1, 'ok', '2.50', 2)), row('orders_1', 'r', null, o(2, 'test', '1.00', 1)), row('orders_2', 'c', null, o(1, 'ok', '10.00', 3)), row('orders_1', 'c', null, o(3, 'ok', '1.00', 0)));
  assert.deepEqual(
    out.map((c) => [c.op, c.sourceTable, `${c.table.namespace}.${c.table.table}`, c.after]),
    [
      ['ddl', 'shop.orders_1', 'shop.orders', null],
      ['r', 'shop.orders_1', 'shop.orders', { id: 1, status: 'ok', price: '2.50', quantity: 2, total: '5.00', shard: 'orders_1' }],
      ['ddl', 'shop.orders_2', 'shop.orders', null],
      ['c', 'shop.orders_2', 'shop.orders', { id: 1, status: 'ok', price: '10.00', quantity: 3, total: '30.00', shard: 'orders_2' }],
    ],
  );
  const create = out[0]!.schemaChange!;
  assert.equal(create.change.kind, 'create.table');
  assert.deepEqual(create.schema.primaryKey, ['shard', 'id']);
  assert.deepEqual(
    create.schema.columns.map((c) => [c.name, c.type, c.nullable]),
    [
      ['id', { kind: 'INT' }, false],
      ['status', { kind: 'VARCHAR', length: 10 }, false],
      ['price', { kind: 'DECIMAL', precision: 10, scale: 2 }, false],
      ['quantity', { kind: 'INT' }, false],
      // DECIMAL(10, 2) * INT: the expression compiler's DECIMAL(21, 2)... whatever it derives, it is the schema's.
      ['total', create.schema.columns[4]!.type, true],
      ['shard', { kind: 'STRING' }, false],
    ],
  );
  assert.equal(create.schema.columns[4]!.type.kind, 'DECIMAL');
  assert.notEqual(out[0]!.schemaChange!.id, out[2]!.schemaChange!.id, 'each pair its own id');
});

test('the filter per image: an update leaving the filter deletes, one entering it inserts, one outside it is dropped', async () => {
  const { fn, out } = await operator([{ id: 'shop.orders_1', columns: ORDERS, primaryKey: ['id'] }]);
  feed(
    fn,
    out,
    row('orders_1', 'u', o(1, 'ok', '2.50', 2), o(1, 'ok', '2.50', 0)),
    row('orders_1', 'u', o(2, 'test', '1.00', 1), o(2, 'ok', '1.00', 1)),
    row('orders_1', 'u', o(3, 'test', '1.00', 1), o(3, 'test', '2.00', 1)),
    row('orders_1', 'u', o(4, 'ok', '1.00', 1), o(4, 'ok', '2.00', 1)),
    row('orders_1', 'd', o(5, 'test', '1.00', 1), null),
    row('orders_1', 'd', o(6, 'ok', '1.00', 1), null),
  );
  const rows = out.filter((c) => c.op !== 'ddl').map((c) => [c.op, c.before?.['id'] ?? null, c.after?.['id'] ?? null, c.after?.['total'] ?? c.before?.['total']]);
  assert.deepEqual(rows, [
    ['d', 1, null, '5.00'],
    ['c', null, 2, '1.00'],
    ['u', 4, 4, '2.00'],
    ['d', 6, null, '1.00'],
  ]);
});

test('before images given in part (PostgreSQL without REPLICA IDENTITY FULL) count as in the sink table: a delete by the key alone, and an update leaving the filter, delete by key', async () => {
  const { fn, out } = await operator([{ id: 'shop.orders_1', columns: ORDERS, primaryKey: ['id'] }]);
  feed(
    fn,
    out,
    // No before image: into the filter, out of it, and outside it before and after.
    row('orders_1', 'u', null, o(1, 'ok', '2.50', 2)),
    row('orders_1', 'u', null, o(2, 'ok', '2.50', 0)),
    row('orders_1', 'u', null, o(3, 'test', '1.00', 1)),
    // The key alone: a delete, and an update that changed the key and leaves the filter.
    row('orders_1', 'd', { id: 4 }, null),
    row('orders_1', 'u', { id: 5 }, o(6, 'test', '1.00', 1)),
  );
  const rows = out.filter((c) => c.op !== 'ddl').map((c) => [c.op, c.before && [c.before['shard'], c.before['id'], c.before['status']], c.after?.['id'] ?? null]);
  assert.deepEqual(rows, [
    ['u', null, 1],
    ['d', ['orders_1', 2, 'ok'], null],
    ['d', ['orders_1', 3, 'test'], null],
    ['d', ['orders_1', 4, null], null],
    ['d', ['orders_1', 5, null], null],
  ]);
});

test('ADD COLUMN through a projection with *: one add.column after the last source column of the result, with an id from the binlog position; the rows after it carry the column', async () => {
  const { fn, out } = await operator([{ id: 'shop.orders_1', columns: ORDERS, primaryKey: ['id'] }]);
  feed(fn, out, row('orders_1', 'c', null, o(1, 'ok', '1.00', 1)));
  feed(fn, out, ddl('orders_1', [{ kind: 'add.column', column: { name: 'note', type: 'varchar(20)' } }], [...ORDERS, { name: 'note', type: 'varchar(20)' }], 777));
  feed(fn, out, row('orders_1', 'c', null, { ...o(2, 'ok', '1.00', 1), note: 'hi' }, 800));
  const changes = out.filter((c) => c.op === 'ddl').map((c) => c.schemaChange!);
  assert.equal(changes.length, 2);
  assert.deepEqual(changes[1]!.change, { kind: 'add.column', column: { name: 'note', type: { kind: 'VARCHAR', length: 20 }, nullable: true }, after: 'quantity' });
  assert.equal(changes[1]!.id, 'binlog.000001:777#0.0 shop.orders_1>shop.orders');
  assert.deepEqual(changes[1]!.schema.columns.map((c) => c.name), ['id', 'status', 'price', 'quantity', 'note', 'total', 'shard']);
  assert.deepEqual(out.at(-1)!.after, { id: 2, status: 'ok', price: '1.00', quantity: 1, note: 'hi', total: '1.00', shard: 'orders_1' });
  // The same change replayed (after a restart the catalog already has the column): no second add.
  const before = out.length;
  feed(fn, out, ddl('orders_1', [{ kind: 'add.column', column: { name: 'note', type: 'varchar(20)' } }], [...ORDERS, { name: 'note', type: 'varchar(20)' }], 777));
  assert.equal(out.length, before);
});

test('RENAME and DROP of a passed-through column; a table created mid-run is announced (create.table, with the rule key) before its first row; an unknown table fails', async () => {
  const { fn, out } = await operator([
    { id: 'shop.orders_1', columns: [...ORDERS, { name: 'note', type: 'text', nullable: true }], primaryKey: ['id'] },
    { id: 'shop.customers', columns: [{ name: 'id', type: 'int(11)', nullable: false }, { name: 'name', type: 'text', nullable: true }], primaryKey: ['id'] },
  ]);
  feed(fn, out, row('customers', 'c', null, { id: 1, name: 'x' }));
  assert.deepEqual(out.map((c) => `${c.op} ${c.table.namespace}.${c.table.table}`), ['ddl shop.customers', 'c shop.customers'], 'no route: the table keeps its id');
  out.length = 0;
  feed(fn, out, row('customers', 'c', null, { id: 2, name: 'y' }));
  feed(fn, out, ddl('customers', [{ kind: 'rename.column', from: 'name', to: 'full_name' }], [{ name: 'id', type: 'int(11)' }, { name: 'full_name', type: 'text' }], 900));
  feed(fn, out, ddl('customers', [{ kind: 'drop.column', column: 'full_name' }], [{ name: 'id', type: 'int(11)' }], 901));
  assert.deepEqual(out.filter((c) => c.op === 'ddl').map((c) => c.schemaChange!.change), [{ kind: 'rename.column', from: 'name', to: 'full_name' }, { kind: 'drop.column', column: 'full_name' }]);
  out.length = 0;
  feed(fn, out, ddl('orders_9', [{ kind: 'create.table' }], ORDERS.map(({ name, type }) => ({ name, type })), 950), row('orders_9', 'c', null, o(1, 'ok', '1.00', 1), 960));
  assert.deepEqual(out.map((c) => c.op), ['ddl', 'c']);
  assert.equal(out[0]!.schemaChange!.change.kind, 'create.table');
  assert.deepEqual(out[0]!.schemaChange!.schema.primaryKey, ['shard', 'id']);
  assert.throws(() => feed(fn, out, row('orders_5', 'c', null, o(1, 'ok', '1.00', 1))), UnknownSourceTableError);
});

test('keyed state: restored from before an ADD COLUMN that the catalog already shows, the replayed ALTER maps to the same add.column with the same id', async () => {
  const { definition } = checkPipelineText('p.yaml', YAML);
  assert.ok(definition);
  // One ValueState per key, as the keyed backend gives it: the current key is the record's table.
  const stored = new Map<string, unknown>();
  let key = '';
  const ctx = { getState: () => ({ value: () => stored.get(key), update: (v: unknown) => void stored.set(key, v), clear: () => void stored.delete(key) }) } as never;
  const make = async (columns: SourceTableSchema['columns']) => {
    const fn = new RouteTransformFunction({
      router: new TableRouter(definition.routes, definition.pipeline.routeMode),
      transforms: definition.transforms,
      dialect: 'mysql',
      namespace: null,
      evaluation: { clock: () => 0, timeZone: 'UTC' },
      catalog: () => ({ readTables: async () => [{ id: 'shop.orders_1', columns, primaryKey: ['id'] }], close: async () => {} }),
    });
    await fn.open(ctx);
    return fn;
  };
  const alter = ddl('orders_1', [{ kind: 'add.column', column: { name: 'note', type: 'varchar(20)' } }], [...ORDERS, { name: 'note', type: 'varchar(20)' }], 777);
  key = 'shop.orders_1';
  const first = await make(ORDERS);
  const before: PipelineChange[] = [];
  feed(first, before, row('orders_1', 'c', null, o(1, 'ok', '1.00', 1)));
  const checkpoint = new Map(stored);
  feed(first, before, alter);
  const applied = before.filter((c) => c.schemaChange?.change.kind === 'add.column').map((c) => c.schemaChange!.id);
  assert.equal(applied.length, 1);

  // The restore: the state as the checkpoint had it, the catalog as it is now (with the column).
  stored.clear();
  for (const [k, v] of checkpoint) stored.set(k, v);
  const second = await make([...ORDERS, { name: 'note', type: 'varchar(20)', nullable: true }]);
  const after: PipelineChange[] = [];
  feed(second, after, row('orders_1', 'c', null, o(2, 'ok', '1.00', 1)), alter);
  assert.deepEqual(after[0]!.schemaChange!.schema.columns.map((c) => c.name), ['id', 'status', 'price', 'quantity', 'total', 'shard'], 'the create.table of the restored schema');
  assert.deepEqual(after[1]!.after, { id: 2, status: 'ok', price: '1.00', quantity: 1, total: '1.00', shard: 'orders_1' });
  assert.deepEqual(after.filter((c) => c.schemaChange?.change.kind === 'add.column').map((c) => c.schemaChange!.id), applied);
  assert.deepEqual((stored.get('shop.orders_1') as { columns: { name: string }[] }).columns.map((c) => c.name), ['id', 'status', 'price', 'quantity', 'note']);
});

test("a schema change as a pair's first record in a run: create.table of the schema before it, then the change", async () => {
  const { fn, out } = await operator([{ id: 'shop.orders_1', columns: ORDERS, primaryKey: ['id'] }]);
  feed(fn, out, ddl('orders_1', [{ kind: 'add.column', column: { name: 'note', type: 'varchar(20)' } }], [...ORDERS, { name: 'note', type: 'varchar(20)' }], 777));
  assert.deepEqual(out.map((c) => c.schemaChange!.change.kind), ['create.table', 'add.column']);
  assert.ok(!out[0]!.schemaChange!.schema.columns.some((c) => c.name === 'note'));
});

test('a table the source read from its catalog when it was added (its create.table carries the key): no rule key nor sibling needed', async () => {
  const { fn, out } = await operator([]);
  const record = ddl('items', [{ kind: 'create.table' }], [{ name: 'sku', type: 'varchar(10)' }, { name: 'n', type: 'int(11)' }], 50);
  feed(fn, out, { ...record, schemaChange: { ...record.schemaChange!, schema: { ...record.schemaChange!.schema, primaryKey: ['sku'] } } }, row('items', 'r', null, { sku: 'a', n: 1 }));
  assert.deepEqual(out.map((c) => c.op), ['ddl', 'r']);
  const created = out[0]!.schemaChange!.change;
  assert.ok(created.kind === 'create.table');
  assert.deepEqual(created.schema.primaryKey, ['sku']);
});
