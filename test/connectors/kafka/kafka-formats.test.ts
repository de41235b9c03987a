// Payload formats and partitioners through the mock brokers: MySQL- and PostgreSQL-shaped change
// records written by KafkaSink as debezium-json and canal-json and read back by KafkaSource
// equal the originals (a Debezium tombstone after a delete is skipped); typed values (Types
// codecs) likewise; 'fixed' puts subtask i's records in partition i, a partitioner function
// puts each record where it says, and a partition outside the topic fails naming it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob, executeJob, Types, type Collector, type ProcessContext, type RuntimeContext } from '../../../src/index.ts';
import { CollectSink } from '../../../src/connectors/collect/index.ts';
import { CollectionSource } from '../../../src/connectors/collection/index.ts';
import { KafkaDeserializers, KafkaSerializers, KafkaSink, KafkaSource, type KafkaDeserializer, type KafkaSinkOptions } from '../../../src/connectors/kafka/index.ts';
import { runCollecting, uniqueId } from '../../fixtures/helpers.ts';
import { readTopic, startKafkaTest, stopKafkaTest, type KafkaTestEnv } from '../../fixtures/kafka-topics.ts';
import { canonical, mysqlChanges, postgresChanges } from '../../formats/cdc-samples.ts';

describe('Kafka payload formats and partitioners', () => {
  let env: KafkaTestEnv;
  before(async () => void (env = await startKafkaTest('weir-kafka-formats')));
  after(() => stopKafkaTest(env ?? {}));

  async function write<T>(items: readonly T[], options: Omit<KafkaSinkOptions<T>, 'connection'>, parallelism = 1): Promise<void> {
    const job = defineJob((e) => {
      e.fromSource(new CollectionSource(items), { uid: 'items' }).sinkTo(new KafkaSink<T>({ connection: { bootstrapServers: env.mock.bootstrap }, guarantee: 'at-least-once', ...options }), { uid: 'kafka-sink' });
    });
    const result = await executeJob({ job, config: { 'parallelism.default': parallelism, 'restart-strategy.type': 'none' } });
    assert.equal(result.status, 'FINISHED', result.error?.message);
  }

  async function read<T>(topic: string, deserializer: KafkaDeserializer<T>): Promise<string[]> {
    const id = uniqueId();
    const job = defineJob((e) => {
      e.fromSource(new KafkaSource<T>({ connection: { bootstrapServers: env.mock.bootstrap }, topics: [topic], bounded: true, deserializer }), { uid: 'kafka' })
        .map((v) => canonical(v))
        .sinkTo(new CollectSink<string>(id));
    });
    const { result, records } = await runCollecting<string>(id, () => executeJob({ job, config: { 'parallelism.default': 1, 'restart-strategy.type': 'none' } }));
    assert.equal(result.status, 'FINISHED', result.error?.message);
    return records;
  }

  const changes = [...mysqlChanges, ...postgresChanges];

  test('debezium-json (with the schema): every change reads back equal, in order; a tombstone is skipped', { timeout: 90_000 }, async () => {
    await env.mock.createTopic('dbz', 1);
    await write(changes, { topic: 'dbz', serializer: KafkaSerializers.debeziumJson({ schemaInclude: true }), key: (c) => String((c.before ?? c.after)!.id) });
    await env.producer.send({ topic: 'dbz', messages: [{ key: '9007199254740993', value: null }] });
    const stored = await readTopic(env.kafka, 'dbz');
    assert.equal(stored.length, changes.length + 1);
    assert.equal(JSON.parse(stored[1]!.value).payload.op, 'c');
    assert.deepEqual(await read('dbz', KafkaDeserializers.debeziumJson()), changes.map(canonical));
  });

  test('canal-json: every change reads back equal (a snapshot read as an insert)', { timeout: 90_000 }, async () => {
    await env.mock.createTopic('canal', 1);
    await write(mysqlChanges, { topic: 'canal', serializer: KafkaSerializers.canalJson({ pkNames: () => ['id'] }) });
    const expected = mysqlChanges.map((c) => canonical([{ op: c.op === 'r' ? 'c' : c.op, before: c.before, after: c.after, source: { db: c.source.db, table: c.source.table, ts: c.source.ts, snapshot: false } }]));
    assert.deepEqual(await read('canal', KafkaDeserializers.canalJson()), expected);
  });

  test('Types codecs: structs with bigints, bytes and maps read back equal', { timeout: 90_000 }, async () => {
    const type = Types.struct({ id: Types.bigint, raw: Types.bytes, tags: Types.map(Types.string, Types.int), note: Types.nullable(Types.string) });
    const items = Array.from({ length: 200 }, (_, i) => ({ id: BigInt(i) * 10n ** 15n, raw: new Uint8Array([i & 255, 7]), tags: new Map([[`t${i % 3}`, i]]), note: i % 2 ? null : `n${i}` }));
    await env.mock.createTopic('typed', 1);
    await write(items, { topic: 'typed', serializer: KafkaSerializers.typed(type) });
    assert.deepEqual(await read('typed', KafkaDeserializers.typed(type)), items.map(canonical));
  });

  test("partitioner 'fixed': subtask i writes partition i of 5 at parallelism 3", { timeout: 90_000 }, async () => {
    await env.mock.createTopic('fixed', 5);
    const job = defineJob((e) => {
      e.fromSource(new CollectionSource(Array.from({ length: 300 }, (_, i) => i)), { uid: 'items' })
        .rebalance()
        .process({
          subtask: 0,
          open(ctx: RuntimeContext) {
            this.subtask = ctx.subtaskIndex;
          },
          processElement(n: number, _ctx: ProcessContext, out: Collector<{ n: number; subtask: number }>) {
            out.collect({ n, subtask: this.subtask });
          },
        } as { subtask: number; open(ctx: RuntimeContext): void; processElement(n: number, ctx: ProcessContext, out: Collector<{ n: number; subtask: number }>): void })
        .sinkTo(new KafkaSink<{ n: number; subtask: number }>({ connection: { bootstrapServers: env.mock.bootstrap }, topic: 'fixed', guarantee: 'at-least-once', partitioner: 'fixed' }), { uid: 'kafka-sink' });
    });
    const result = await executeJob({ job, config: { 'parallelism.default': 3, 'restart-strategy.type': 'none' } });
    assert.equal(result.status, 'FINISHED', result.error?.message);
    const stored = await readTopic(env.kafka, 'fixed');
    assert.equal(stored.length, 300);
    assert.deepEqual(new Set(stored.map((r) => r.partition)), new Set([0, 1, 2]), 'three subtasks, three partitions');
    for (const r of stored) assert.equal(r.partition, (JSON.parse(r.value) as { subtask: number }).subtask, `record ${r.value} in partition ${r.partition}`);
    assert.deepEqual(stored.map((r) => (JSON.parse(r.value) as { n: number }).n).sort((a, b) => a - b), Array.from({ length: 300 }, (_, i) => i));
  });

  test('a partitioner function puts each record where it says; a partition outside the topic fails naming it', { timeout: 90_000 }, async () => {
    await env.mock.createTopic('byrecord', 4);
    const items = Array.from({ length: 200 }, (_, i) => i);
    await write(items, { topic: 'byrecord', partitioner: (n, t) => (n * 7) % t.partitions }, 2);
    const stored = await readTopic(env.kafka, 'byrecord');
    assert.equal(stored.length, 200);
    for (const r of stored) assert.equal(r.partition, (Number(r.value) * 7) % 4);
    const job = defineJob((e) => {
      e.fromSource(new CollectionSource([1, 2, 3]), { uid: 'items' }).sinkTo(new KafkaSink<number>({ connection: { bootstrapServers: env.mock.bootstrap }, topic: 'byrecord', guarantee: 'at-least-once', partitioner: (n) => n + 2 }), { uid: 'kafka-sink' });
    });
    const result = await executeJob({ job, config: { 'restart-strategy.type': 'none' } });
    assert.equal(result.status, 'FAILED');
    assert.match(result.error?.message ?? '', /partitioner chose partition 4 of topic 'byrecord', which has partitions 0\.\.3/);
  });
});
