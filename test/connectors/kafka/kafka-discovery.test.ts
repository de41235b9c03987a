// Partition discovery of the Kafka source: the option's checks, and the enumerator on its own
// against a private Kafka mock (latest start, a later topic from earliest, round-robin, a restored
// state). Through a real job (a topic created while it runs, another between a stop-with-savepoint
// at p2 and the resume at p3, exactly-once counts): kafka-discovery.long.test.ts (test:long).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger, type JobMaster } from '../../../src/index.ts';
import { produceWords, startKafkaTest, stopKafkaTest, type KafkaTestEnv } from '../../fixtures/kafka-topics.ts';
import { KafkaSource, type KafkaSplit } from '../../../src/connectors/kafka/index.ts';
import { KafkaSplitEnumerator } from '../../../src/connectors/kafka/kafka-split-enumerator.ts';
import type { EnumeratorContext } from '../../../src/api/source.ts';

async function until(what: string, check: () => boolean, failed: () => string): Promise<void> {
  const deadline = Date.now() + 240_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${failed()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('partitionDiscoveryIntervalMs: refused on a bounded source and when not a positive number; without it there is no enumerator', () => {
  const connection = { bootstrapServers: '127.0.0.1:1' };
  assert.throws(() => new KafkaSource({ connection, topicPattern: /^x/, bounded: true, partitionDiscoveryIntervalMs: 1000 }), /partitionDiscoveryIntervalMs needs an unbounded source/);
  for (const bad of [0, -5, Number.NaN]) assert.throws(() => new KafkaSource({ connection, topicPattern: /^x/, partitionDiscoveryIntervalMs: bad }), /partitionDiscoveryIntervalMs must be a positive number/);
  assert.equal(new KafkaSource({ connection, topicPattern: /^x/ }).createEnumerator, undefined);
  assert.equal(typeof new KafkaSource({ connection, topics: ['x'], partitionDiscoveryIntervalMs: 1000 }).createEnumerator, 'function');
});

describe('Kafka partition discovery', () => {
  let env: KafkaTestEnv;
  const started: JobMaster[] = [];
  before(async () => void (env = await startKafkaTest('weir-kafka-discovery')));
  after(async () => {
    for (const jm of started) await jm.cancel().catch(() => {});
    await stopKafkaTest(env ?? {});
  });

  test('the enumerator on its own: the start from the starting offsets (latest), a later topic from earliest, round-robin, a restored state hands out only what it lacks', { timeout: 120_000 }, async () => {
    const assigned: { subtask: number; splits: KafkaSplit[] }[] = [];
    const ctx: EnumeratorContext<KafkaSplit> = {
      parallelism: 2, jobId: 'j', checkpointing: true, log: createLogger({ level: 'error', write: () => {} }),
      assignSplits: (subtask, splits) => void assigned.push({ subtask, splits }),
      signalNoMoreSplits: () => {}, sendEventToReader: () => {}, setProcessingBacklog: () => {}, failJob: (e) => assert.fail(e),
    };
    await env.mock.createTopic('en-a', 3);
    await produceWords(env.producer, 'en-a', 3, 0, 30, 5);
    const o = { connection: { bootstrapServers: env.mock.bootstrap }, topicPattern: /^en-/, startingOffsets: 'latest' as const };
    const first = new KafkaSplitEnumerator(o, ctx, 50, undefined);
    await first.start();
    try {
      assert.deepEqual(assigned, [
        { subtask: 0, splits: [{ topic: 'en-a', partition: 0, nextOffset: 10 }, { topic: 'en-a', partition: 2, nextOffset: 10 }] },
        { subtask: 1, splits: [{ topic: 'en-a', partition: 1, nextOffset: 10 }] },
      ]);
      await env.mock.createTopic('en-b', 2);
      await produceWords(env.producer, 'en-b', 2, 0, 6, 5);
      await until('the new topic handed out', () => assigned.length === 4, () => JSON.stringify(assigned));
      assert.deepEqual(assigned.slice(2), [
        { subtask: 1, splits: [{ topic: 'en-b', partition: 0, nextOffset: 0 }] },
        { subtask: 0, splits: [{ topic: 'en-b', partition: 1, nextOffset: 0 }] },
      ]);
      assert.deepEqual(first.snapshotState(), { version: 1, assigned: ['en-a-0', 'en-a-1', 'en-a-2', 'en-b-0', 'en-b-1'] });
    } finally {
      await first.close();
    }
    assigned.length = 0;
    await env.mock.createTopic('en-c', 1);
    const restored = new KafkaSplitEnumerator(o, ctx, 50, { version: 1, assigned: ['en-a-0', 'en-a-1', 'en-a-2'] });
    await restored.start();
    try {
      await until('the partitions the restored state lacks handed out', () => assigned.length === 2, () => JSON.stringify(assigned));
      const handed = assigned.flatMap((a) => a.splits.map((s) => `${s.topic}-${s.partition}@${s.nextOffset}`)).sort();
      assert.deepEqual(handed, ['en-b-0@0', 'en-b-1@0', 'en-c-0@0']);
      assert.equal(restored.metrics().partitions, 6);
    } finally {
      await restored.close();
    }
  });
});
