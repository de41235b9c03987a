// Table selection as Flink CDC's Selectors: ',' between patterns, '.' between parts, '\.' any character,
// parts matched whole without regard to case, as many parts as the id has.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TablePatternError, TableSelector } from '../../src/pipeline/table-selector.ts';

test("data-source.md's example (with Flink CDC's '\\.' for any character): several patterns, regex parts", () => {
  const s = TableSelector.parse('adb.\\.*, bdb.user_table_[0-9]+, [app|web].order_\\.*');
  assert.ok(s.matches('adb.anything'));
  assert.ok(s.matches('bdb.user_table_42'));
  assert.ok(!s.matches('bdb.user_table_x'));
  assert.ok(s.matches('a.order_1'), "[app|web] is a character class, as in Java");
  assert.ok(!s.matches('cdb.orders'));
});

test('parts are matched whole, without regard to case, and only against ids of as many parts', () => {
  const s = TableSelector.parse('app_db.orders');
  assert.ok(s.matches('APP_DB.Orders'));
  assert.ok(!s.matches('app_db.orders_1'));
  assert.ok(!s.matches('x.app_db.orders'));
  assert.ok(!s.matches('app_dbXorders'));
  assert.deepEqual(s.literalTables(), ['app_db.orders']);
  assert.deepEqual(TableSelector.parse('db.orders_\\d+, db.t').literalTables(), ['db.t']);
});

test('a bad regular expression is a TablePatternError naming the pattern', () => {
  assert.throws(() => TableSelector.parse('db.ok, db.(broken'), (e: unknown) => e instanceof TablePatternError && e.pattern === 'db.(broken');
  assert.throws(() => TableSelector.parse('a.b.c.d'), TablePatternError);
});
