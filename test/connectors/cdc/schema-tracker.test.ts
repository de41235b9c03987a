import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SchemaTracker } from '../../../src/connectors/cdc/schema-tracker.ts';
import type { CdcColumn, CdcSchemaEvent } from '../../../src/connectors/cdc/schema-change.ts';

const ev = (e: Partial<CdcSchemaEvent<number, null>>): CdcSchemaEvent<number, null> => ({ db: 'app', table: 't', at: 1, ts: 0, source: null, ...e });
const cols = (...spec: string[]): CdcColumn[] => spec.map((s) => ({ name: s.split(' ')[0]!, type: s.split(' ')[1]! }));

test('RELATION-style columns are diffed: add, drop, rename (same place and type), retype; the first description is the baseline', () => {
  const t = new SchemaTracker();
  assert.equal(t.apply(ev({ columns: cols('id int4', 'a text') })), undefined);
  assert.deepEqual(t.apply(ev({ columns: cols('id int4', 'a text', 'b int8') }))?.changes, [{ kind: 'add.column', column: { name: 'b', type: 'int8' }, after: 'a' }]);
  assert.deepEqual(t.apply(ev({ columns: cols('id int4', 'c text', 'b int8') }))?.changes, [{ kind: 'rename.column', from: 'a', to: 'c' }]);
  assert.deepEqual(t.apply(ev({ columns: cols('id int8', 'c text', 'b int8') }))?.changes, [{ kind: 'alter.column.type', column: 'id', type: 'int8' }]);
  const dropped = t.apply(ev({ columns: cols('id int8', 'b int8') }));
  assert.deepEqual(dropped?.changes, [{ kind: 'drop.column', column: 'c' }]);
  assert.equal(dropped?.schema.version, 4);
  // The same RELATION again (a replay after a restore): nothing new.
  assert.equal(t.apply(ev({ columns: cols('id int8', 'b int8') })), undefined);
});

test('parsed changes apply to the tracked columns once; a truncate keeps the version; known tables make an unknown one a create', () => {
  const t = new SchemaTracker();
  t.seed([{ db: 'app', table: 't', version: 0, columns: cols('id int', 'a int') }]);
  const add = ev({ changes: [{ kind: 'add.column', column: { name: 'x', type: 'int' }, after: null }] });
  assert.deepEqual(t.apply(add)?.schema.columns.map((c) => c.name), ['x', 'id', 'a']);
  assert.equal(t.apply(add), undefined, 'applied twice (a DDL inside an open event group, replayed)');
  assert.equal(t.apply(ev({ changes: [{ kind: 'truncate.table' }] }))?.schema.version, 1);
  const created = t.apply(ev({ table: 'u', columns: cols('id int4') }));
  assert.deepEqual(created?.changes, [{ kind: 'create.table' }]);
  assert.equal(created?.schema.version, 0);
  // Restored from a checkpoint's schemas.
  const restored = new SchemaTracker(t.snapshot());
  assert.equal(restored.version('app', 't'), 1);
  assert.deepEqual(restored.get('app', 't')?.columns.map((c) => c.name), ['x', 'id', 'a']);
});
