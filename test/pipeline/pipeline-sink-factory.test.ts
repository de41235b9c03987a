// The pipeline's sinks: every type makes a sink (a database sink's unsupported sink.mode is a typed error); a
// row change becomes a debezium-json or canal-json message of its sink table (the table as db and
// table, the source's commit time); a schema change line of files/print carries the whole change.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canalJson } from '../../src/formats/canal-json.ts';
import { debeziumJson } from '../../src/formats/debezium-json.ts';
import { asFormatChange, changeLine, type PipelineChange } from '../../src/pipeline/pipeline-change.ts';
import { PipelineSinkModeError, pipelineSink } from '../../src/pipeline/pipeline-sink-factory.ts';
import type { SinkDefinition } from '../../src/pipeline/pipeline-definition.ts';

const sink = (type: SinkDefinition['type'], options: Record<string, unknown> = {}): SinkDefinition => ({ type, name: undefined, options: { type, ...options }, schemaChanges: [], place: { line: 1, column: 1 } });

test('every sink type makes a sink; a database sink refuses sink.mode insert, naming it', () => {
  const db = { hostname: '127.0.0.1', username: 'u', database: 'd' };
  for (const type of ['postgres', 'mysql'] as const) {
    assert.equal(typeof pipelineSink(sink(type, db)), 'function');
    assert.equal(typeof pipelineSink(sink(type, { ...db, 'sink.mode': 'upsert' }), { schemaChangeBehavior: 'evolve' }), 'function');
    assert.throws(() => pipelineSink(sink(type, { ...db, 'sink.mode': 'insert' })), (e: unknown) => e instanceof PipelineSinkModeError && e.mode === 'insert' && /sink\.mode 'insert'/.test(e.message));
  }
  assert.equal(typeof pipelineSink(sink('print')), 'function');
  assert.equal(typeof pipelineSink(sink('files', { path: '/tmp/x' })), 'function');
  assert.equal(typeof pipelineSink(sink('kafka', { 'properties.bootstrap.servers': ['127.0.0.1:9092'] })), 'function');
  assert.equal(typeof pipelineSink(sink('jetstream', { servers: ['nats://127.0.0.1:4222'], stream: 'S' })), 'function');
});

const update: PipelineChange = {
  table: { namespace: 'shop', table: 'orders' },
  sourceTable: 'shop.orders_1',
  op: 'u',
  before: { id: 1, total: '5.00', shard: 'orders_1' },
  after: { id: 1, total: '7.50', shard: 'orders_1' },
  ts: 1700000000000,
  snapshot: false,
};

test('a row change in debezium-json and canal-json: the sink table as db.table, the commit time as ts', () => {
  const d = JSON.parse(new TextDecoder().decode(debeziumJson().serialize(asFormatChange(update)))) as Record<string, any>;
  assert.deepEqual(d, { before: update.before, after: update.after, source: { ts_ms: 1700000000000, snapshot: 'false', db: 'shop', table: 'orders' }, op: 'u', ts_ms: 1700000000000, transaction: null });
  const c = JSON.parse(new TextDecoder().decode(canalJson({ pkNames: () => ['shard', 'id'] }).serialize(asFormatChange(update)))) as Record<string, any>;
  assert.equal(c['type'], 'UPDATE');
  assert.equal(c['database'], 'shop');
  assert.equal(c['table'], 'orders');
  assert.deepEqual(c['pkNames'], ['shard', 'id']);
  assert.deepEqual(c['old'], [{ total: '5.00' }]);
});

test('a schema change line: table, source table, op ddl and the change with its id', () => {
  const ddl: PipelineChange = { ...update, op: 'ddl', before: null, after: null, schemaChange: { change: { kind: 'drop.column', column: 'x' }, schema: { columns: [], primaryKey: [] }, id: 'binlog.000001:4#0.0 shop.orders_1>shop.orders' } };
  assert.deepEqual(JSON.parse(changeLine(ddl)), {
    table: 'shop.orders',
    sourceTable: 'shop.orders_1',
    op: 'ddl',
    ts: 1700000000000,
    snapshot: false,
    before: null,
    after: null,
    schemaChange: { change: { kind: 'drop.column', column: 'x' }, schema: { columns: [], primaryKey: [] }, id: 'binlog.000001:4#0.0 shop.orders_1>shop.orders' },
  });
  assert.equal(JSON.parse(changeLine({ ...update, after: { id: 1n } }))['after']['id'], '1', 'bigints as text');
});
