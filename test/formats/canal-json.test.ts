// canal-json: weir's CDC records written as Canal messages and read back, a message as Canal
// writes it (values as text, several rows), and the refusals.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canalJson, FormatError } from '../../src/formats/index.ts';
import { mysqlChanges } from './cdc-samples.ts';

const text = (b: Uint8Array): string => new TextDecoder().decode(b);

test("round trip of MySQL changes: inserts, updates and deletes equal, a snapshot read comes back as an insert", () => {
  const f = canalJson({ pkNames: () => ['id'] });
  for (const c of mysqlChanges) {
    const [back, ...more] = f.deserialize(f.serialize(c));
    assert.equal(more.length, 0);
    assert.deepEqual(back, { op: c.op === 'r' ? 'c' : c.op, before: c.before, after: c.after, source: { db: 'shop', table: 'orders', ts: c.source.ts, snapshot: false } });
  }
});

test("the message is Canal's: data, old with the changed columns only, type, database, table, pkNames, es", () => {
  const doc = JSON.parse(text(canalJson({ pkNames: (t) => (t === 'orders' ? ['id'] : null) }).serialize(mysqlChanges[2]!)));
  assert.equal(doc.type, 'UPDATE');
  assert.deepEqual(doc.old, [{ amount: '12.50', note: null }]);
  assert.equal(doc.data[0].amount, '13.75');
  assert.equal(doc.database, 'shop');
  assert.equal(doc.table, 'orders');
  assert.deepEqual(doc.pkNames, ['id']);
  assert.equal(doc.es, mysqlChanges[2]!.source.ts);
  assert.equal(doc.isDdl, false);
  assert.equal(doc.mysqlType.id, 'bigint');
  assert.equal(JSON.parse(text(canalJson().serialize(mysqlChanges[3]!))).type, 'DELETE');
});

test("a message as Canal writes it: text values typed by mysqlType, every row of the batch", () => {
  const message = {
    data: [
      { id: '111', name: 'scooter', weight: '5.18', big: '9007199254740993', flag: '1' },
      { id: '112', name: 'car', weight: '7.5', big: '2', flag: '0' },
    ],
    database: 'inventory',
    es: 1589373560000,
    id: 9,
    isDdl: false,
    mysqlType: { id: 'int(11)', name: 'varchar(255)', weight: 'float', big: 'bigint(20) unsigned', flag: 'bit(1)' },
    old: [{ weight: '5.15' }, { name: 'cart' }],
    pkNames: ['id'],
    sql: '',
    table: 'products',
    ts: 1589373560798,
    type: 'UPDATE',
  };
  const rows = canalJson().deserialize(new TextEncoder().encode(JSON.stringify(message)));
  assert.deepEqual(rows, [
    { op: 'u', before: { id: 111, name: 'scooter', weight: 5.15, big: 9_007_199_254_740_993n, flag: true }, after: { id: 111, name: 'scooter', weight: 5.18, big: 9_007_199_254_740_993n, flag: true }, source: { db: 'inventory', table: 'products', ts: 1589373560000, snapshot: false } },
    { op: 'u', before: { id: 112, name: 'cart', weight: 7.5, big: 2n, flag: false }, after: { id: 112, name: 'car', weight: 7.5, big: 2n, flag: false }, source: { db: 'inventory', table: 'products', ts: 1589373560000, snapshot: false } },
  ]);
});

test('refusals: a schema change, a DDL message, an unknown type', () => {
  const f = canalJson();
  assert.throws(() => f.serialize({ op: 'ddl', before: null, after: null, source: { table: 't', ts: 0, snapshot: false } }), (e: unknown) => e instanceof FormatError && e.reason === 'UNKNOWN_OP');
  const enc = (o: unknown) => new TextEncoder().encode(JSON.stringify(o));
  assert.throws(() => f.deserialize(enc({ data: [], table: 't', isDdl: true, type: 'ALTER', sql: 'ALTER TABLE t ADD c INT' })), (e: unknown) => e instanceof FormatError && e.path === 'isDdl');
  assert.throws(() => f.deserialize(enc({ data: [{ a: 1 }], table: 't', type: 'TRUNCATE' })), (e: unknown) => e instanceof FormatError && /TRUNCATE/.test(e.message));
  assert.throws(() => f.deserialize(enc({ rows: [] })), (e: unknown) => e instanceof FormatError && e.reason === 'NOT_AN_ENVELOPE');
});
