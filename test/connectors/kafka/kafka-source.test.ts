// KafkaSource on its own, against the librdkafka mock cluster: bounded reads of a topic with more
// partitions than readers deliver every record once and each partition in order, with keys,
// headers and the record timestamp as event time; starting offsets; a missing topic, an
// unreachable broker and an unreadable record fail naming what went wrong.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob, executeJob, type Collector, type ProcessContext } from '../../../src/index.ts';
import { CollectSink } from '../../../src/connectors/collect/index.ts';
import { KafkaDeserializers, KafkaSource, type KafkaTextRecord } from '../../../src/connectors/kafka/index.ts';
import { runCollecting, uniqueId } from '../../fixtures/helpers.ts';
import { produceWords, readTopic, startKafkaTest, stopKafkaTest, type KafkaTestEnv } from '../../fixtures/kafka-topics.ts';

describe('KafkaSource', () => {
  let env: KafkaTestEnv;
  before(async () => {
    env = await startKafkaTest('weir-kafka-source');
  });
  after(async () => {
    await stopKafkaTest(env ?? {});
  });

  for (const parallelism of [1, 2]) {
    test(`bounded, 5 partitions at parallelism ${parallelism}: every record once, each partition in order, key and timestamp exposed`, { timeout: 90_000 }, async () => {
      const topic = `src${parallelism}`;
      await env.mock.createTopic(topic, 5);
      await produceWords(env.producer, topic, 5, 0, 3000, 50);
      await env.producer.send({ topic, messages: [{ key: 'hk', value: 'with-header', partition: 0, headers: { h: 'hv' } }] });
      const stored = await readTopic(env.kafka, topic);
      assert.equal(stored.length, 3001);
      const id = uniqueId();
      const job = defineJob((e) => {
        e.fromSource(new KafkaSource<KafkaTextRecord>({ connection: { bootstrapServers: env.mock.bootstrap }, topics: [topic], bounded: true, bufferSize: 64, deserializer: KafkaDeserializers.record() }), { uid: 'kafka' })
          .process({
            processElement(r: KafkaTextRecord, ctx: ProcessContext, out: Collector<string>) {
              out.collect(JSON.stringify({ ...r, eventTime: ctx.timestamp() }));
            },
          })
          .sinkTo(new CollectSink<string>(id));
      });
      const { result, records } = await runCollecting<string>(id, () => executeJob({ job, config: { 'parallelism.default': parallelism } }));
      assert.equal(result.status, 'FINISHED', result.error?.message);
      const got = records.map((r) => JSON.parse(r) as KafkaTextRecord & { eventTime: number });
      assert.equal(got.length, stored.length);
      const byPosition = new Map(stored.map((s) => [`${s.partition}/${s.offset}`, s]));
      const last = new Map<number, number>();
      for (const r of got) {
        const s = byPosition.get(`${r.partition}/${r.offset}`);
        assert.ok(s, `${r.partition}/${r.offset} is not in the topic`);
        assert.equal(r.value, s.value);
        assert.equal(r.key, s.key);
        assert.equal(r.eventTime, r.timestamp);
        assert.ok(r.offset > (last.get(r.partition) ?? -1), `partition ${r.partition}: ${r.offset} after ${last.get(r.partition)}`);
        last.set(r.partition, r.offset);
      }
      assert.equal(new Set(got.map((r) => `${r.partition}/${r.offset}`)).size, stored.length, 'every record once');
      assert.deepEqual(got.find((r) => r.value === 'with-header')?.headers, { h: 'hv' });
    });
  }

  test("starting offsets 'specific' and 'latest': a bounded read of what lies between them and the end", { timeout: 60_000 }, async () => {
    await env.mock.createTopic('starts', 2);
    await produceWords(env.producer, 'starts', 2, 0, 100, 100);
    const id = uniqueId();
    const job = (startingOffsets: 'latest' | { specific: Record<string, number> }) =>
      defineJob((e) => {
        e.fromSource(new KafkaSource({ connection: { bootstrapServers: env.mock.bootstrap }, topics: ['starts'], bounded: true, startingOffsets }), { uid: 'kafka' }).sinkTo(new CollectSink<string>(id));
      });
    const specific = await runCollecting<string>(id, () => executeJob({ job: job({ specific: { 'starts-0': 45, 'starts-1': 49 } }) }));
    assert.equal(specific.result.status, 'FINISHED', specific.result.error?.message);
    // Partition p holds words p, p+2, ...: offset 45 of partition 0 is word 90, offset 49 of partition 1 is word 99.
    assert.deepEqual(specific.records.sort(), ['w90', 'w92', 'w94', 'w96', 'w98', 'w99'].sort());
    const id2 = uniqueId();
    const latest = await runCollecting<string>(id2, () => executeJob({ job: defineJob((e) => { e.fromSource(new KafkaSource({ connection: { bootstrapServers: env.mock.bootstrap }, topics: ['starts'], bounded: true, startingOffsets: 'latest' }), { uid: 'kafka' }).sinkTo(new CollectSink<string>(id2)); }) }));
    assert.equal(latest.result.status, 'FINISHED', latest.result.error?.message);
    assert.deepEqual(latest.records, []);
  });

  test('a topic that does not exist fails the job naming it and the brokers', { timeout: 60_000 }, async () => {
    const id = uniqueId();
    const job = defineJob((e) => {
      e.fromSource(new KafkaSource({ connection: { bootstrapServers: env.mock.bootstrap }, topics: ['nope'], bounded: true }), { uid: 'kafka' }).sinkTo(new CollectSink<string>(id));
    });
    const { result } = await runCollecting<string>(id, () => executeJob({ job, config: { 'restart-strategy.type': 'none' } }));
    assert.equal(result.status, 'FAILED');
    assert.match(result.error?.message ?? '', /Kafka topic 'nope' does not exist on 127\.0\.0\.1:\d+/);
  });

  test('an unreachable broker fails the job naming the bootstrap list', { timeout: 90_000 }, async () => {
    const id = uniqueId();
    const job = defineJob((e) => {
      e.fromSource(new KafkaSource({ connection: { bootstrapServers: '127.0.0.1:1', connectTimeoutMs: 500 }, topics: ['x'], bounded: true }), { uid: 'kafka' }).sinkTo(new CollectSink<string>(id));
    });
    const { result } = await runCollecting<string>(id, () => executeJob({ job, config: { 'restart-strategy.type': 'none' } }));
    assert.equal(result.status, 'FAILED');
    assert.match(result.error?.message ?? '', /no Kafka broker of 127\.0\.0\.1:1 could be reached/);
  });

  test('a record the deserializer refuses fails the job naming topic, partition and offset', { timeout: 60_000 }, async () => {
    await env.mock.createTopic('bad', 1);
    await env.producer.send({ topic: 'bad', messages: [{ value: '1' }, { value: '2' }, { value: 'not json {' }] });
    const id = uniqueId();
    const job = defineJob((e) => {
      e.fromSource(new KafkaSource({ connection: { bootstrapServers: env.mock.bootstrap }, topics: ['bad'], bounded: true, deserializer: KafkaDeserializers.json<number>() }), { uid: 'kafka' }).sinkTo(new CollectSink<number>(id));
    });
    const { result } = await runCollecting<number>(id, () => executeJob({ job, config: { 'restart-strategy.type': 'none' } }));
    assert.equal(result.status, 'FAILED');
    assert.match(result.error?.message ?? '', /Kafka record at bad-0 offset 2 cannot be deserialized/);
  });
});
