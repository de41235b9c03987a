// Transform rules checked before anything runs: without the source's catalog, what the file alone
// shows (syntax, functions) at its line and column; with it, every captured table compiled as the
// job will compile it; an unreachable source leaves the columns unchecked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkPipelineText } from '../../src/pipeline/pipeline-validator.ts';
import { checkAgainstSource } from '../../src/pipeline/source-check.ts';
import { checkTransforms } from '../../src/pipeline/transform-check.ts';
import type { SourceTableSchema } from '../../src/pipeline/source-table-catalog.ts';

const file = (projection: string, filter: string) => `source:
  type: mariadb
  hostname: h
  username: u
  tables: shop.\\.*
sink:
  type: print
transform:
  - source-table: shop.orders_\\d+
    projection: ${projection}
    filter: ${filter}
`;

const ORDERS: SourceTableSchema['columns'] = [
  { name: 'id', type: 'int(11)', nullable: false },
  { name: 'status', type: 'varchar(10)', nullable: false },
  { name: 'price', type: 'decimal(10,2)', nullable: false },
];

test('without the catalog: an unknown function and a filter that does not parse, at their place in the file; unknown columns are not judged', () => {
  const { problems } = checkPipelineText('p.yaml', file('\\*, FOO(price) AS x, nosuch AS y', "status <> 'test' AND"));
  assert.deepEqual(problems.map((p) => `${p.line}:${p.column} ${p.code}`), ['10:21 bad-expression', '11:33 bad-expression']);
  assert.match(problems[0]!.message, /^p\.yaml:10:21: transform\.projection: transform rule 1: projection '\*, FOO\(price\) AS x, nosuch AS y': unknown function FOO/);
  assert.match(problems[1]!.message, /filter 'status <> 'test' AND': /);
  assert.deepEqual(checkPipelineText('p.yaml', file('\\*, nosuch AS y', 'other > 1')).problems, [], 'columns need the catalog');
});

test('with the catalog: each table compiled by its first rule; a column one shard lacks is named with that shard', () => {
  const { definition } = checkPipelineText('p.yaml', file('\\*, price * 2 AS twice, note', "status <> 'test'"));
  assert.ok(definition);
  const tables: SourceTableSchema[] = [
    { id: 'shop.orders_1', columns: [...ORDERS, { name: 'note', type: 'varchar(20)', nullable: true }], primaryKey: ['id'] },
    { id: 'shop.orders_2', columns: ORDERS, primaryKey: ['id'] },
    { id: 'shop.customers', columns: [{ name: 'id', type: 'int(11)', nullable: false }], primaryKey: ['id'] },
  ];
  const problems = checkTransforms(definition, tables);
  assert.deepEqual(problems.map((p) => p.message), [`p.yaml:10:41: transform.projection: transform rule 1 (table shop.orders_2): projection '*, price * 2 AS twice, note': unknown column 'note'`]);
});

test('a source that does not answer leaves the columns unchecked, with the reason; one that answers is checked', async () => {
  const { definition } = checkPipelineText('p.yaml', file('\\*, note', 'id > 0'));
  assert.ok(definition);
  let closed = 0;
  const hanging = await checkAgainstSource(definition, 50, () => ({ readTables: () => new Promise(() => {}), close: async () => void closed++ }));
  assert.deepEqual(hanging, { reached: false, reason: 'no answer in 50 ms' });
  const refused = await checkAgainstSource(definition, 1000, () => ({ readTables: () => Promise.reject(new Error('connect ECONNREFUSED')), close: async () => void closed++ }));
  assert.deepEqual(refused, { reached: false, reason: 'connect ECONNREFUSED' });
  const answered = await checkAgainstSource(definition, 1000, () => ({ readTables: async () => [{ id: 'shop.orders_9', columns: ORDERS, primaryKey: ['id'] }], close: async () => void closed++ }));
  assert.ok(answered.reached && answered.tables === 1 && answered.problems.length === 1 && /unknown column 'note'/.test(answered.problems[0]!.message));
  assert.equal(closed, 3, 'the catalog is closed each time');
});

test('tables routed to one sink table must fit it together: a column that is a number in one shard and text in another is refused at the route', async () => {
  const text = `${file('\\*', 'id > 0')}route:
  - source-table: shop.orders_\\d+
    sink-table: shop.orders
`;
  const { definition } = checkPipelineText('p.yaml', text);
  assert.ok(definition);
  const widened: SourceTableSchema = { id: 'shop.orders_2', columns: [{ name: 'id', type: 'bigint(20)', nullable: false }, { name: 'status', type: 'varchar(40)', nullable: false }, { name: 'price', type: 'decimal(12,2)', nullable: false }], primaryKey: ['id'] };
  const fits = await checkAgainstSource(definition, 1000, () => ({ readTables: async () => [{ id: 'shop.orders_1', columns: ORDERS, primaryKey: ['id'] }, widened], close: async () => {} }));
  assert.ok(fits.reached && fits.problems.length === 0, 'wider types of the same kind fit');
  const textual: SourceTableSchema = { ...widened, id: 'shop.orders_3', columns: [...ORDERS.slice(0, 2), { name: 'price', type: 'varchar(20)', nullable: false }] };
  const clash = await checkAgainstSource(definition, 1000, () => ({ readTables: async () => [{ id: 'shop.orders_1', columns: ORDERS, primaryKey: ['id'] }, textual], close: async () => {} }));
  assert.ok(clash.reached);
  assert.deepEqual(clash.problems.map((p) => p.message), [
    'p.yaml:13:5: route: route rule 1: sink table shop.orders cannot hold the rows of shop.orders_1 and shop.orders_3: column price is DECIMAL(10, 2) in shop.orders_1 but VARCHAR(20) in shop.orders_3 (cast it in a transform rule, or route the tables apart)',
  ]);
});
