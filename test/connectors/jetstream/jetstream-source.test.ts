// JetStreamSource on its own: bounded reads of several subject filters (more splits than readers,
// a small buffer read slowly, so that every split's loop waits for room) deliver every message
// once and each subject in order, and end; event time is the stored timestamp; a message the
// deserializer refuses fails the job naming the stream, the sequence and the subject.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { NatsConnection } from '@nats-io/transport-node';
import { defineJob, executeJob, type ProcessContext, type Collector } from '../../../src/index.ts';
import { CollectSink } from '../../../src/connectors/collect/index.ts';
import { JetStreamSource } from '../../../src/connectors/jetstream/index.ts';
import { runCollecting, uniqueId } from '../../fixtures/helpers.ts';
import { ControlledSource } from '../../fixtures/recovery-helpers.ts';
import { startNatsCluster, type NatsCluster } from '../../fixtures/nats-cluster.ts';
import { connectTo, createStream, publishWords, readStream } from '../../fixtures/jetstream-streams.ts';

describe('JetStreamSource', () => {
  let nats: NatsCluster;
  let nc: NatsConnection;

  before(async () => {
    nats = await startNatsCluster({ nodes: 1 });
    nc = await connectTo(nats.servers);
  });
  after(async () => {
    await nc?.close().catch(() => {});
    await nats?.stop();
  });

  for (const parallelism of [1, 2]) {
    test(`bounded, 5 subjects at parallelism ${parallelism}: every message once, each subject in order, event time the stored timestamp`, { timeout: 60_000 }, async () => {
      const stream = `src${parallelism}`;
      const subjects = ['a', 'b', 'c', 'd', 'e'].map((s) => `${stream}.${s}`);
      await createStream(nc, stream, subjects);
      await publishWords(nc, subjects, 0, 3000, 50);
      const stored = await readStream(nc, stream);
      const id = uniqueId();
      const job = defineJob((env) => {
        env
          // Read slower than the server delivers: every split's loop waits for room in turn.
          .fromSource(new ControlledSource(new JetStreamSource({ connection: { servers: nats.servers }, stream, bounded: true, bufferSize: 16, deserializer: (data, info) => `${info.subject} ${info.sequence} ${new TextDecoder().decode(data)}` }), { ratePerSecond: 4000 }), { uid: 'js' })
          .process({
            processElement(v: string, ctx: ProcessContext, out: Collector<string>) {
              out.collect(`${v} ${ctx.timestamp()}`);
            },
          })
          .sinkTo(new CollectSink<string>(id));
      });
      const { result, records } = await runCollecting<string>(id, () => executeJob({ job, config: { 'parallelism.default': parallelism } }));
      assert.equal(result.status, 'FINISHED', result.error?.message);
      const times = new Map<number, number>();
      assert.equal(records.length, stored.length);
      const bySeq = new Map(stored.map((m) => [m.seq, m]));
      const lastPerSubject = new Map<string, number>();
      for (const r of records) {
        const [subject, seq, word, ts] = r.split(' ') as [string, string, string, string];
        const m = bySeq.get(Number(seq));
        assert.ok(m, `sequence ${seq} is not in the stream`);
        assert.equal(m.subject, subject);
        assert.equal(m.text, word);
        assert.ok(Number(seq) > (lastPerSubject.get(subject) ?? 0), `${subject}: ${seq} after ${lastPerSubject.get(subject)}`);
        lastPerSubject.set(subject, Number(seq));
        times.set(Number(seq), Number(ts));
      }
      assert.equal(new Set(records.map((r) => r.split(' ')[1])).size, stored.length, 'every sequence once');
      for (const m of stored) assert.equal(times.get(m.seq), m.storedAt, `event time of ${m.seq}`);
    });
  }

  test('a message the deserializer refuses fails the job naming stream, sequence and subject', async () => {
    await createStream(nc, 'bad', ['bad.x']);
    await publishWords(nc, ['bad.x'], 0, 5, 5);
    const js = (await import('@nats-io/jetstream')).jetstream(nc);
    const ack = await js.publish('bad.x', 'not json {');
    const id = uniqueId();
    const job = defineJob((env) => {
      env
        .fromSource(new JetStreamSource({ connection: { servers: nats.servers }, stream: 'bad', bounded: true, deserializer: (data) => (new TextDecoder().decode(data).startsWith('w') ? 'ok' : (JSON.parse(new TextDecoder().decode(data)) as string)) }), { uid: 'js' })
        .sinkTo(new CollectSink<string>(id));
    });
    const { result } = await runCollecting<string>(id, () => executeJob({ job, config: { 'restart-strategy.type': 'none' } }));
    assert.equal(result.status, 'FAILED');
    assert.match(result.error?.message ?? '', new RegExp(`JetStream stream 'bad' message at sequence ${ack.seq} \\(subject bad\\.x\\) cannot be deserialized`));
  });
});
