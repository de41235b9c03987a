// debezium-json: weir's CDC records written as Debezium change events and read back (with and
// without Connect's schema), a Debezium event as Debezium's MySQL connector writes it, and the
// refusals (schema changes, unknown ops, bytes that are not an envelope).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { debeziumJson, FormatError, UNAVAILABLE_VALUE } from '../../src/formats/index.ts';
import { mysqlChanges, postgresChanges } from './cdc-samples.ts';

const text = (b: Uint8Array): string => new TextDecoder().decode(b);

test('with the schema: every MySQL change reads back equal, bigints and bytes included', () => {
  const f = debeziumJson({ schemaInclude: true });
  for (const c of mysqlChanges) assert.deepEqual(f.deserialize(f.serialize(c)), c);
});

test("the envelope is Debezium's: before/after/source/op/ts_ms, source.ts_ms and snapshot as text, Connect types in the schema", () => {
  const doc = JSON.parse(text(debeziumJson({ schemaInclude: true, connector: 'mysql' }).serialize(mysqlChanges[2]!)));
  assert.deepEqual(Object.keys(doc), ['schema', 'payload']);
  assert.deepEqual(Object.keys(doc.payload), ['before', 'after', 'source', 'op', 'ts_ms', 'transaction']);
  assert.equal(doc.payload.op, 'u');
  assert.equal(doc.payload.ts_ms, mysqlChanges[2]!.source.ts);
  assert.deepEqual(doc.payload.source, { connector: 'mysql', ts_ms: mysqlChanges[2]!.source.ts, snapshot: 'false', db: 'shop', table: 'orders', file: 'binlog.000003', pos: 300, row: 0 });
  assert.equal(doc.payload.after.amount, '13.75');
  assert.equal(doc.payload.after.payload, Buffer.from([0, 1, 254, 255]).toString('base64'));
  const after = doc.schema.fields.find((f: { field: string }) => f.field === 'after');
  assert.deepEqual(Object.fromEntries(after.fields.map((f: { field: string; type: string }) => [f.field, f.type])), { id: 'int64', customer: 'string', amount: 'string', paid: 'boolean', note: 'string', placed: 'string', payload: 'bytes' });
  assert.equal(doc.schema.name, 'shop.orders.Envelope');
});

test('without the schema: bigints are exact JSON integers, bytes base64 text', () => {
  const f = debeziumJson();
  const big = f.serialize(mysqlChanges[1]!);
  assert.match(text(big), /"id":9007199254740993,/);
  const back = f.deserialize(big);
  assert.equal(back.after?.id, 9_007_199_254_740_993n, 'an integer beyond 2^53 reads back exactly, as a bigint');
  assert.equal(back.after?.payload, '');
  const small = f.deserialize(f.serialize(mysqlChanges[0]!));
  assert.equal(small.after?.id, 1, 'a safe integer reads back as a number (no schema says int64)');
  assert.equal(small.source.snapshot, true);
  assert.equal(small.op, 'r');
});

test("PostgreSQL's unchanged TOASTed columns: Debezium's placeholder, read back as unchangedColumns", () => {
  const f = debeziumJson();
  const bytes = f.serialize(postgresChanges[0]!);
  assert.equal(JSON.parse(text(bytes)).after.body, UNAVAILABLE_VALUE);
  assert.deepEqual(f.deserialize(bytes), postgresChanges[0]);
});

test("a Debezium MySQL connector's event (JSON converter, schemas.enable=false) reads as weir's change", () => {
  const event = {
    before: { id: 1004, first_name: 'Anne', last_name: 'Kretchmar', email: 'annek@noanswer.org' },
    after: { id: 1004, first_name: 'Anne Marie', last_name: 'Kretchmar', email: 'annek@noanswer.org' },
    source: { version: '2.5.0.Final', connector: 'mysql', name: 'mysql-server-1', ts_ms: 1465581029000, snapshot: 'false', db: 'inventory', table: 'customers', server_id: 223344, gtid: null, file: 'mysql-bin.000003', pos: 484, row: 0, thread: 7, query: null },
    op: 'u',
    ts_ms: 1465581029523,
  };
  const c = debeziumJson().deserialize(new TextEncoder().encode(JSON.stringify(event)));
  assert.equal(c.op, 'u');
  assert.deepEqual(c.after, event.after);
  assert.equal(c.source.table, 'customers');
  assert.equal(c.source.db, 'inventory');
  assert.equal(c.source.ts, 1465581029000);
  assert.equal(c.source.snapshot, false);
});

test('refusals: a schema change, an unknown op, text that is not JSON, JSON that is not an envelope', () => {
  const f = debeziumJson();
  const ddl = { op: 'ddl', before: null, after: null, source: { table: 't', ts: 0, snapshot: false } };
  assert.throws(() => f.serialize(ddl), (e: unknown) => e instanceof FormatError && e.reason === 'UNKNOWN_OP' && /'ddl'/.test(e.message));
  const enc = (s: string) => new TextEncoder().encode(s);
  assert.throws(() => f.deserialize(enc('{"op":"t","before":null,"after":null,"source":{"table":"x"}}')), (e: unknown) => e instanceof FormatError && e.reason === 'UNKNOWN_OP');
  assert.throws(() => f.deserialize(enc('{"op":')), (e: unknown) => e instanceof FormatError && e.reason === 'NOT_JSON');
  assert.throws(() => f.deserialize(enc('[1]')), (e: unknown) => e instanceof FormatError && e.reason === 'NOT_AN_ENVELOPE');
  assert.throws(() => f.serialize({ ...mysqlChanges[1]!, after: { x: Number.NaN } }), (e: unknown) => e instanceof FormatError && e.path === 'after.x');
});
