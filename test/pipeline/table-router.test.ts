// Routes as Flink CDC's TableIdRouter: the examples of its route.md, sharded tables merged into one,
// capture groups, replace-symbol, ALL_MATCH against FIRST_MATCH, and the default (same id).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { expandReplacement, RoutePatternError, routeRegExpSource, TableRouter } from '../../src/pipeline/table-router.ts';

test('route.md: one table to one table, and a table no rule matches keeps its id', () => {
  const r = new TableRouter([{ sourceTable: 'mydb.web_order', sinkTable: 'mydb.ods_web_order' }]);
  assert.deepEqual(r.route('mydb.web_order'), ['mydb.ods_web_order']);
  assert.deepEqual(r.route('mydb.web_orders'), ['mydb.web_orders'], 'matched whole, not as a prefix');
  assert.deepEqual(r.route('mydbXweb_order'), ['mydbXweb_order'], "an unescaped '.' is the separator, a literal dot");
});

test('sharded orders_\\d+ merged into one table; other tables of the database keep their ids', () => {
  const r = new TableRouter([
    { sourceTable: 'shop.orders_\\d+', sinkTable: 'shop.orders' },
    { sourceTable: 'shop.order_items_\\d+', sinkTable: 'shop.order_items' },
  ]);
  for (const shard of ['shop.orders_1', 'shop.orders_2', 'shop.orders_17']) assert.deepEqual(r.route(shard), ['shop.orders']);
  assert.deepEqual(r.route('shop.order_items_3'), ['shop.order_items']);
  assert.deepEqual(r.route('shop.orders_x'), ['shop.orders_x']);
  assert.deepEqual(r.route('shop.customers'), ['shop.customers']);
  assert.deepEqual(r.route('other.orders_1'), ['other.orders_1']);
});

test("route.md: 'mydb\\.*' (every table of mydb, written with an escaped dot) to one table", () => {
  const r = new TableRouter([{ sourceTable: 'mydb.\\.*', sinkTable: 'mydb.ods_web_order' }]);
  assert.equal(routeRegExpSource('mydb.\\.*'), 'mydb\\..*');
  assert.deepEqual(r.route('mydb.a'), ['mydb.ods_web_order']);
  assert.deepEqual(r.route('mydb.web_order_2'), ['mydb.ods_web_order']);
});

test('route.md: replace-symbol is replaced by the source table name', () => {
  const r = new TableRouter([{ sourceTable: 'source_db.\\.*', sinkTable: 'sink_db.<>', replaceSymbol: '<>' }]);
  assert.deepEqual(r.route('source_db.XXX'), ['sink_db.XXX']);
  assert.deepEqual(r.route('source_db.orders'), ['sink_db.orders']);
});

test('route.md: capture groups $1 and $2 (db_foo.bar_tbl -> sink_db_foo.sink_table_bar)', () => {
  const r = new TableRouter([{ sourceTable: 'db_(\\.*).(\\.*)_tbl', sinkTable: 'sink_db_$1.sink_table_$2' }]);
  assert.deepEqual(r.route('db_foo.bar_tbl'), ['sink_db_foo.sink_table_bar']);
});

test('ALL_MATCH (default) sends a table to every matching rule; FIRST_MATCH only to the first', () => {
  const rules = [
    { sourceTable: 'shop.orders_\\d+', sinkTable: 'shop.orders' },
    { sourceTable: 'shop.\\.*', sinkTable: 'archive.<>', replaceSymbol: '<>' },
  ];
  assert.deepEqual(new TableRouter(rules).route('shop.orders_1'), ['shop.orders', 'archive.orders_1']);
  assert.deepEqual(new TableRouter(rules, 'FIRST_MATCH').route('shop.orders_1'), ['shop.orders']);
  assert.deepEqual(new TableRouter(rules, 'FIRST_MATCH').route('shop.customers'), ['archive.customers']);
  assert.deepEqual(new TableRouter(rules).matchingRules('shop.orders_1'), [0, 1]);
});

test("comma-separated source tables are alternatives ('|')", () => {
  const r = new TableRouter([{ sourceTable: 'a.t1, b.t2', sinkTable: 'c.t' }]);
  assert.deepEqual(r.route('a.t1'), ['c.t']);
  assert.deepEqual(r.route('b.t2'), ['c.t']);
  assert.deepEqual(r.route('a.t2'), ['a.t2']);
});

test("Java's replacement syntax: \\$ is a dollar, ${name} a named group, $12 is group 1 then '2' when there is no group 12", () => {
  const m = /^(?<db>a)(b)$/.exec('ab')!;
  assert.equal(expandReplacement('x\\$1', m), 'x$1');
  assert.equal(expandReplacement('${db}_$2', m), 'a_b');
  assert.equal(expandReplacement('$12', m), 'a2');
  assert.equal(expandReplacement('cost$', m), 'cost$');
});

test('a bad pattern, and a sink-table naming a group the pattern lacks, are refused naming the rule', () => {
  assert.throws(() => new TableRouter([{ sourceTable: 'a.b', sinkTable: 'c.d' }, { sourceTable: 'db.(orders', sinkTable: 'x.y' }]), (e: unknown) => e instanceof RoutePatternError && e.rule === 1 && e.key === 'source-table');
  assert.throws(() => new TableRouter([{ sourceTable: 'db.(\\.*)', sinkTable: 'x.$2' }]), (e: unknown) => e instanceof RoutePatternError && e.key === 'sink-table' && /group \$2.*has 1 group/.test(e.message));
  assert.doesNotThrow(() => new TableRouter([{ sourceTable: 'db.t', sinkTable: 'x.$<>', replaceSymbol: '$<>' }]), 'with replace-symbol, $ is not a group');
});
