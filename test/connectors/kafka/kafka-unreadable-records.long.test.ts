// KafkaSource's deserializationErrorOutput: the records its deserializer throws on go to the
// source's side output (fromSource(...).getSideOutput(tag)) naming topic, partition and offset,
// with key, headers, value, timestamp and the reason, and the job goes on; with exactly-once
// checkpoints and injected failures both the records and the side records reach their
// exactly-once Kafka sinks once each (compared with what was produced). Without the option the
// record fails the job, restarts or not, naming topic, partition and offset.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Producer } from 'kafkajs';
import { createLogger, defineJob, executeJob, OutputTag } from '../../../src/index.ts';
import { CollectedRecords, CollectSink } from '../../../src/connectors/collect/index.ts';
import { KafkaSink, KafkaSource, type KafkaRecord, type KafkaUnreadableRecord } from '../../../src/connectors/kafka/index.ts';
import { runCollecting, uniqueId } from '../../fixtures/helpers.ts';
import { ControlledSource, JobEvents } from '../../fixtures/recovery-helpers.ts';
import { readTopic, startKafkaTest, stopKafkaTest, type KafkaTestEnv } from '../../fixtures/kafka-topics.ts';
import { checkProtocol, TransactionAudit } from '../../fixtures/kafka-transaction-audit.ts';

const UNREADABLE = new OutputTag<KafkaUnreadableRecord>('unreadable');
const text = (b: Uint8Array | null): string => (b === null ? 'null' : new TextDecoder().decode(b));

/** Words are read; anything else is refused. */
function wordsOnly(r: KafkaRecord): string {
  const value = text(r.value);
  if (!/^w\d+$/.test(value)) throw new Error(`not a word: ${value}`);
  return value;
}

interface Produced {
  readonly i: number;
  readonly partition: number;
  /** Known without asking the broker: one producer sends to each partition in order, from an empty topic. */
  readonly offset: number;
  readonly key: string;
  readonly value: string;
  readonly bad: boolean;
}

/** Record i is word `w<i>` with key `k<i>`, or every `badEvery`th one `bad<i>`; sent to partition i mod partitions with a `kind` header. */
async function produceMixed(producer: Producer, topic: string, partitions: number, count: number, badEvery: number): Promise<Produced[]> {
  const out: Produced[] = [];
  for (let from = 0; from < count; from += 500) {
    const batch: Produced[] = [];
    for (let i = from; i < Math.min(count, from + 500); i++) {
      const bad = i % badEvery === badEvery - 1;
      batch.push({ i, partition: i % partitions, offset: Math.floor(i / partitions), key: `k${i}`, value: bad ? `bad${i}` : `w${i}`, bad });
    }
    await producer.send({ topic, messages: batch.map((p) => ({ key: p.key, value: p.value, partition: p.partition, headers: { kind: p.bad ? 'bad' : 'word' } })) });
    out.push(...batch);
  }
  return out;
}

describe('KafkaSource deserialization errors to a side output', () => {
  let env: KafkaTestEnv;
  before(async () => void (env = await startKafkaTest('weir-kafka-unreadable')));
  after(() => stopKafkaTest(env ?? {}));

  test('each of 100 unreadable records among 1,000 reaches the side output once, naming topic, partition and offset, with key, headers, value, timestamp and reason; the others are read', { timeout: 90_000 }, async () => {
    await env.mock.createTopic('mixed1', 3);
    const produced = await produceMixed(env.producer, 'mixed1', 3, 1000, 10);
    // The offsets expected are the broker's.
    const stored = await readTopic(env.kafka, 'mixed1');
    assert.deepEqual(stored.map((s) => `${s.partition}/${s.offset} ${s.value}`).sort(), produced.map((p) => `${p.partition}/${p.offset} ${p.value}`).sort());
    const main = uniqueId();
    const side = uniqueId();
    const bootstrapServers = env.mock.bootstrap;
    const job = defineJob((e) => {
      const words = e.fromSource(new KafkaSource({ connection: { bootstrapServers }, topics: ['mixed1'], bounded: true, deserializer: wordsOnly, deserializationErrorOutput: UNREADABLE }), { uid: 'kafka' });
      words.sinkTo(new CollectSink<string>(main));
      // Through a network edge (rebalance to another parallelism), not only chained: the bytes cross it.
      words
        .getSideOutput(UNREADABLE)
        .rebalance()
        .process<string>(
          {
            processElement(u, ctx, out) {
              const exact = u.value instanceof Uint8Array && u.key instanceof Uint8Array && u.headers['kind'] instanceof Uint8Array;
              out.collect(`${u.topic} ${u.partition} ${u.offset} ${text(u.key)} ${text(u.value)} ${text(u.headers['kind'] ?? null)} ${u.timestamp > 0 && ctx.timestamp() === u.timestamp} ${exact} ${u.reason}`);
            },
          },
          { parallelism: 1 },
        )
        .sinkTo(new CollectSink<string>(side), { parallelism: 1 });
    });
    const sideCollected = new CollectedRecords<string>(side);
    const { result, records } = await runCollecting<string>(main, () => executeJob({ job, config: { 'parallelism.default': 2 } })).catch(async (err: unknown) => {
      await sideCollected.close(1).catch(() => {});
      throw err;
    });
    const sideRecords = await sideCollected.close(result.status === 'FINISHED' ? 10_000 : 1).catch(() => sideCollected.records);
    assert.equal(result.status, 'FINISHED', result.error?.message);
    assert.deepEqual([...records].sort(), produced.filter((p) => !p.bad).map((p) => p.value).sort());
    const expectedSide = produced.filter((p) => p.bad).map((p) => `mixed1 ${p.partition} ${p.offset} ${p.key} ${p.value} bad true true not a word: ${p.value}`).sort();
    assert.equal(expectedSide.length, 100);
    assert.deepEqual([...sideRecords].sort(), expectedSide);
  });

  test('exactly-once checkpoints, 5 injected failures: the read records and the unreadable ones each reach their exactly-once Kafka sink once', { timeout: 300_000 }, async () => {
    await env.mock.createTopic('mixed2', 4);
    await env.mock.createTopic('good2', 3);
    await env.mock.createTopic('bad2', 2);
    const produced = await produceMixed(env.producer, 'mixed2', 4, 6000, 10);
    const bootstrapServers = env.mock.bootstrap;
    const goodAudit = new TransactionAudit(`kafka-audit-good-${uniqueId()}`);
    const badAudit = new TransactionAudit(`kafka-audit-bad-${uniqueId()}`);
    const goodEvents = goodAudit.name;
    const badEvents = badAudit.name;
    const job = defineJob((e) => {
      e.enableCheckpointing({ interval: 100, timeout: 10_000 });
      const source = new KafkaSource({ connection: { bootstrapServers }, topics: ['mixed2'], bounded: true, deserializer: wordsOnly, deserializationErrorOutput: UNREADABLE });
      const words = e.fromSource(new ControlledSource(source, { ratePerSecond: 6000 }), { uid: 'kafka' });
      const commitRetry = { maxAttempts: 60, initialBackoffMs: 50, maxBackoffMs: 500 };
      words.sinkTo(new KafkaSink<string>({ connection: { bootstrapServers }, topic: 'good2', transactionEvents: goodEvents, commitRetry }), { uid: 'good' });
      words
        .getSideOutput(UNREADABLE)
        .map((u) => `${u.topic} ${u.partition} ${u.offset} ${text(u.value)}`)
        .sinkTo(new KafkaSink<string>({ connection: { bootstrapServers }, topic: 'bad2', transactionEvents: badEvents, commitRetry }), { uid: 'bad' });
    });
    const events = new JobEvents();
    try {
      const result = await executeJob({
        job,
        config: {
          'parallelism.default': 2,
          'execution.checkpointing.dir': join(env.root, 'faults'),
          'restart-strategy.type': 'fixed-delay',
          'restart-strategy.fixed-delay.attempts': 60,
          'restart-strategy.fixed-delay.delay': '200 ms',
        },
        faults: { failures: 5, seed: 11, minRecords: 500, maxRecords: 2500 },
        listener: events.listener,
        log: createLogger({ level: 'error', write: () => {} }),
      });
      assert.equal(result.status, 'FINISHED', `job did not finish: ${result.error?.message}\n${events.describe()}`);
      assert.equal(result.injectedFailures, 5);
      assert.ok(events.restored.length >= 2, `no restart restored a checkpoint: ${events.describe()}`);
      const completed = events.completed.map((c) => ({ id: c.id, at: c.completedAt }));
      // The mock writes no transaction markers: what a read_committed reader sees is the committed transactions' records.
      const good = checkProtocol(await readTopic(env.kafka, 'good2'), goodAudit, completed);
      const bad = checkProtocol(await readTopic(env.kafka, 'bad2'), badAudit, completed);
      assert.deepEqual(good.problems, []);
      assert.deepEqual(bad.problems, []);
      const expectedGood = produced.filter((p) => !p.bad).map((p) => p.value).sort();
      const expectedBad = produced.filter((p) => p.bad).map((p) => `mixed2 ${p.partition} ${p.offset} ${p.value}`).sort();
      assert.equal(expectedBad.length, 600);
      assert.deepEqual(good.visible.map((r) => r.value).sort(), expectedGood);
      assert.deepEqual(bad.visible.map((r) => r.value).sort(), expectedBad);
      console.log(`good: ${good.committedTransactions} committed transactions, ${good.abortedOrFencedRecords} records of aborted/fenced ones; bad: ${bad.committedTransactions} committed transactions, ${bad.abortedOrFencedRecords} records of aborted/fenced ones; restores ${events.restored.length}`);
    } finally {
      goodAudit.close();
      badAudit.close();
    }
  });

  test('without the option an unreadable record fails the job despite a restart strategy, naming topic, partition and offset', { timeout: 90_000 }, async () => {
    await env.mock.createTopic('mixed3', 2);
    const produced = await produceMixed(env.producer, 'mixed3', 2, 40, 1000);
    await env.producer.send({ topic: 'mixed3', messages: [{ key: 'kx', value: 'not a word', partition: 1 }] });
    const id = uniqueId();
    const bootstrapServers = env.mock.bootstrap;
    const job = defineJob((e) => {
      e.enableCheckpointing({ interval: 100, timeout: 10_000 });
      e.fromSource(new KafkaSource({ connection: { bootstrapServers }, topics: ['mixed3'], bounded: true, deserializer: wordsOnly }), { uid: 'kafka' }).sinkTo(new CollectSink<string>(id));
    });
    const events = new JobEvents();
    const { result } = await runCollecting<string>(id, () =>
      executeJob({
        job,
        config: { 'execution.checkpointing.dir': join(env.root, 'fails'), 'restart-strategy.type': 'fixed-delay', 'restart-strategy.fixed-delay.attempts': 60, 'restart-strategy.fixed-delay.delay': '200 ms' },
        listener: events.listener,
        log: createLogger({ level: 'error', write: () => {} }),
      }),
    );
    assert.equal(result.status, 'FAILED');
    // Partition 1 held records 1, 3, ..., 39 at offsets 0..19: the refused one is at offset 20.
    assert.equal(produced.filter((p) => p.partition === 1).length, 20);
    assert.match(result.error?.message ?? '', /Kafka record at mixed3-1 offset 20 cannot be deserialized: not a word: not a word/);
    assert.deepEqual(events.restarts, [], 'the same record fails on every replay: no restart');
  });
});
