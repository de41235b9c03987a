// JetStreamSource's deserializationErrorOutput: the messages its deserializer throws on go to the
// source's side output (fromSource(...).getSideOutput(tag)) naming stream, subject and sequence,
// with the payload and the reason, and the job goes on; with injected failures both the records
// and the side records reach their JetStream sinks exactly once (compared with what was published).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { headers, type NatsConnection } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
import { createLogger, defineJob, executeJob, OutputTag } from '../../../src/index.ts';
import { CollectedRecords, CollectSink } from '../../../src/connectors/collect/index.ts';
import { JetStreamSink, JetStreamSource, type JetStreamUnreadableMessage } from '../../../src/connectors/jetstream/index.ts';
import { runCollecting, uniqueId } from '../../fixtures/helpers.ts';
import { ControlledSource, JobEvents } from '../../fixtures/recovery-helpers.ts';
import type { NatsCluster } from '../../fixtures/nats-cluster.ts';
import { createStream, readStream, startJetStreamTest, stopJetStreamTest } from '../../fixtures/jetstream-streams.ts';

const UNREADABLE = new OutputTag<JetStreamUnreadableMessage>('unreadable');

/** Words are read; anything else is refused. */
function wordsOnly(data: Uint8Array): string {
  const text = new TextDecoder().decode(data);
  if (!/^w\d+$/.test(text)) throw new Error(`not a word: ${text}`);
  return text;
}

/** Message i is word `w<i>`, or every `badEvery`th one `bad<i>`; published alternately to the subjects. Returns what was published, by sequence. */
async function publishMixed(nc: NatsConnection, subjects: readonly string[], count: number, badEvery: number): Promise<Map<number, { subject: string; text: string }>> {
  const js = jetstream(nc);
  const out = new Map<number, { subject: string; text: string }>();
  for (let from = 0; from < count; from += 500) {
    const batch: Promise<void>[] = [];
    for (let i = from; i < Math.min(count, from + 500); i++) {
      const subject = subjects[i % subjects.length]!;
      const bad = i % badEvery === badEvery - 1;
      const text = bad ? `bad${i}` : `w${i}`;
      const h = headers();
      h.set('Kind', bad ? 'bad' : 'word');
      batch.push(js.publish(subject, text, { headers: h }).then((ack) => void out.set(ack.seq, { subject, text })));
    }
    await Promise.all(batch);
  }
  return out;
}

describe('JetStreamSource deserialization errors to a side output', () => {
  let nats: NatsCluster;
  let nc: NatsConnection;
  let root: string;
  before(async () => void ({ nats, nc, root } = await startJetStreamTest('jetstream-unreadable', { nodes: 1 })));
  after(() => stopJetStreamTest({ nats, nc, root }));

  test('each unreadable message reaches the side output once, naming stream, subject and sequence, with its payload and reason; the others are read', { timeout: 60_000 }, async () => {
    await createStream(nc, 'mixed', ['mixed.a', 'mixed.b']);
    const published = await publishMixed(nc, ['mixed.a', 'mixed.b'], 1000, 10);
    const main = uniqueId();
    const side = uniqueId();
    const job = defineJob((env) => {
      const words = env.fromSource(new JetStreamSource({ connection: { servers: nats.servers }, stream: 'mixed', bounded: true, deserializer: wordsOnly, deserializationErrorOutput: UNREADABLE }), { uid: 'js' });
      words.sinkTo(new CollectSink<string>(main));
      // Through a network edge (rebalance to another parallelism), not only chained.
      words
        .getSideOutput(UNREADABLE)
        .rebalance()
        .map((u) => `${u.stream} ${u.subject} ${u.sequence} ${new TextDecoder().decode(u.data)} ${u.headers['Kind']} ${u.timestamp > 0} ${u.reason}`, { parallelism: 1 })
        .sinkTo(new CollectSink<string>(side), { parallelism: 1 });
    });
    const sideCollected = new CollectedRecords<string>(side);
    const { result, records } = await runCollecting<string>(main, () => executeJob({ job, config: { 'parallelism.default': 2 } })).catch(async (e: unknown) => {
      await sideCollected.close(1).catch(() => {});
      throw e;
    });
    const sideRecords = await sideCollected.close(result.status === 'FINISHED' ? 10_000 : 1).catch(() => sideCollected.records);
    assert.equal(result.status, 'FINISHED', result.error?.message);
    const good = [...published.values()].filter((m) => m.text.startsWith('w')).map((m) => m.text).sort();
    assert.deepEqual([...records].sort(), good);
    const expectedSide = [...published.entries()].filter(([, m]) => m.text.startsWith('bad')).map(([seq, m]) => `mixed ${m.subject} ${seq} ${m.text} bad true not a word: ${m.text}`).sort();
    assert.equal(expectedSide.length, 100);
    assert.deepEqual([...sideRecords].sort(), expectedSide);
  });

  test('5 injected failures: the read messages and the unreadable ones each reach their JetStream sink exactly once', { timeout: 120_000 }, async () => {
    await createStream(nc, 'mixed2', ['m2.a', 'm2.b', 'm2.c']);
    await createStream(nc, 'good2', ['g2.>']);
    await createStream(nc, 'bad2', ['b2.>']);
    const published = await publishMixed(nc, ['m2.a', 'm2.b', 'm2.c'], 6000, 7);
    const servers = nats.servers;
    const job = defineJob((env) => {
      env.enableCheckpointing({ interval: 100, timeout: 10_000 });
      const source = new JetStreamSource({ connection: { servers }, stream: 'mixed2', bounded: true, deserializer: wordsOnly, deserializationErrorOutput: UNREADABLE });
      const words = env.fromSource(new ControlledSource(source, { ratePerSecond: 6000 }), { uid: 'js' });
      const retry = { maxAttempts: 60, initialBackoffMs: 50, maxBackoffMs: 500 };
      words.sinkTo(new JetStreamSink<string>({ connection: { servers }, stream: 'good2', subject: 'g2.words', serializer: (w) => w, commitRetry: retry }), { uid: 'good' });
      words
        .getSideOutput(UNREADABLE)
        .map((u) => `${u.subject} ${u.sequence} ${new TextDecoder().decode(u.data)}`)
        .sinkTo(new JetStreamSink<string>({ connection: { servers }, stream: 'bad2', subject: 'b2.unreadable', serializer: (w) => w, commitRetry: retry }), { uid: 'bad' });
    });
    const events = new JobEvents();
    const result = await executeJob({
      job,
      config: {
        'parallelism.default': 2,
        'execution.checkpointing.dir': join(root, 'faults'),
        'restart-strategy.type': 'fixed-delay',
        'restart-strategy.fixed-delay.attempts': 60,
        'restart-strategy.fixed-delay.delay': '200 ms',
      },
      faults: { failures: 5, seed: 7, minRecords: 500, maxRecords: 2500 },
      listener: events.listener,
      log: createLogger({ level: 'error', write: () => {} }),
    });
    assert.equal(result.status, 'FINISHED', `job did not finish: ${result.error?.message}\n${events.describe()}`);
    assert.equal(result.injectedFailures, 5);
    assert.ok(events.restored.length >= 2, `no restart restored a checkpoint: ${events.describe()}`);
    const good = (await readStream(nc, 'good2')).map((m) => m.text).sort();
    const bad = (await readStream(nc, 'bad2')).map((m) => m.text).sort();
    const expectedGood = [...published.values()].filter((m) => m.text.startsWith('w')).map((m) => m.text).sort();
    const expectedBad = [...published.entries()].filter(([, m]) => m.text.startsWith('bad')).map(([seq, m]) => `${m.subject} ${seq} ${m.text}`).sort();
    assert.equal(expectedBad.length, Math.floor(6000 / 7));
    assert.deepEqual(good, expectedGood);
    assert.deepEqual(bad, expectedBad);
  });
});
