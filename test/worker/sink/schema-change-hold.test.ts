// The hold of records behind a schema change, driven by hand: a change and its table's records
// wait for the completion of the first checkpoint cut after it; other tables pass; a second
// change waits for the next cut; holds survive a snapshot and restore.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SchemaChangeHold } from '../../../src/worker/sink/schema-change-hold.ts';

interface Rec {
  readonly table: string;
  readonly id: string;
  readonly ddl?: boolean;
}
const classify = { tableOf: (r: Rec) => r.table, holdsBack: (r: Rec) => r.ddl === true };
const row = (table: string, id: string): Rec => ({ table, id });
const ddl = (table: string, id: string): Rec => ({ table, id, ddl: true });
const ids = (rs: readonly Rec[]) => rs.map((r) => r.id);

function feed(hold: SchemaChangeHold<Rec>, records: readonly Rec[]): string[] {
  return ids(records.filter((r) => hold.offer(r)));
}

describe('SchemaChangeHold', () => {
  test('a change waits for the completion of the checkpoint cut after it; other tables pass meanwhile', () => {
    const hold = new SchemaChangeHold(classify);
    assert.deepEqual(feed(hold, [row('a', 'a1'), ddl('a', 'A'), row('a', 'a2'), row('b', 'b1')]), ['a1', 'b1']);
    assert.deepEqual(ids(hold.complete(6)), [], 'a checkpoint whose cut came before the change releases nothing');
    hold.cut(7);
    assert.deepEqual(feed(hold, [row('a', 'a3'), row('b', 'b2')]), ['b2']);
    assert.deepEqual(ids(hold.complete(6)), []);
    assert.deepEqual(ids(hold.complete(7)), ['A', 'a2', 'a3']);
    assert.equal(hold.holding, 0);
    assert.deepEqual(feed(hold, [row('a', 'a4')]), ['a4']);
  });

  test('a second change in the held records waits for the next cut after the release', () => {
    const hold = new SchemaChangeHold(classify);
    feed(hold, [ddl('a', 'A'), row('a', 'a1'), ddl('a', 'B'), row('a', 'a2')]);
    hold.cut(3);
    assert.deepEqual(ids(hold.complete(3)), ['A', 'a1']);
    assert.deepEqual(ids(hold.complete(3)), [], 'B waits for a cut after a1 was written');
    assert.deepEqual(feed(hold, [row('a', 'a3')]), []);
    hold.cut(4);
    assert.deepEqual(ids(hold.complete(5)), ['B', 'a2', 'a3'], 'a later completion subsumes the awaited one');
  });

  test('records that are not changes pass untouched while nothing is held', () => {
    const hold = new SchemaChangeHold(classify);
    assert.deepEqual(feed(hold, [row('a', '1'), row('b', '2'), row('a', '3')]), ['1', '2', '3']);
    hold.cut(1);
    assert.deepEqual(hold.complete(1), []);
  });

  test('snapshot and restore: the held records come back, released after the first checkpoint after the restore', () => {
    const hold = new SchemaChangeHold(classify);
    feed(hold, [ddl('a', 'A'), row('a', 'a1'), ddl('b', 'B')]);
    hold.cut(9);
    const state = hold.snapshot();
    assert.deepEqual(state.map((h) => [h.table, h.waitFor, ids(h.records)]), [['a', 9, ['A', 'a1']], ['b', 9, ['B']]]);
    const restored = new SchemaChangeHold(classify);
    restored.restore(state);
    assert.deepEqual(feed(restored, [row('a', 'a2'), row('c', 'c1')]), ['c1']);
    assert.deepEqual(ids(restored.complete(9)), [], 'not before a cut after the restore');
    restored.cut(10);
    assert.deepEqual(ids(restored.complete(10)), ['A', 'a1', 'a2', 'B']);
  });
});
