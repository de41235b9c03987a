// JetStream -> running counts per word -> JetStream, exactly once: the output stream must hold
// every running count once (an independent count of the published words), with injected task
// failures; and the sink's refusals at start (a missing stream, a duplicate window too short).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { NatsConnection } from '@nats-io/transport-node';
import { createLogger, executeJob } from '../../../src/index.ts';
import { JobEvents, makeTempDir, removeDir } from '../../fixtures/recovery-helpers.ts';
import type { NatsCluster } from '../../fixtures/nats-cluster.ts';
import { connectTo, countLines, createStream, expectedRunningCounts, publishWords, readStream, startJetStreamTest, stopJetStreamTest } from '../../fixtures/jetstream-streams.ts';

const JOB = join(import.meta.dirname, '..', '..', 'fixtures', 'jobs', 'jetstream-counts.ts');
const SUBJECTS = ['words.a', 'words.b', 'words.c', 'words.d'];

describe('JetStream source and exactly-once sink', () => {
  let nats: NatsCluster;
  let nc: NatsConnection;
  let root: string;
  before(async () => void ({ nats, nc, root } = await startJetStreamTest('jetstream-eo', { nodes: 1 })));
  after(() => stopJetStreamTest({ nats, nc, root }));

  function run(name: string, events: JobEvents, args: string[], faults?: { failures: number; seed: number; minRecords: number; maxRecords: number }) {
    return executeJob({
      job: JOB,
      args: ['--servers', nats.servers, ...args],
      config: {
        'parallelism.default': 2,
        'execution.checkpointing.dir': join(root, name),
        'restart-strategy.type': 'fixed-delay',
        'restart-strategy.fixed-delay.attempts': 60,
        'restart-strategy.fixed-delay.delay': '200 ms',
      },
      ...(faults ? { faults } : {}),
      listener: events.listener,
      log: createLogger({ level: 'error', write: () => {} }),
    });
  }

  test('5 injected failures: the output stream holds every running count exactly once', async () => {
    await createStream(nc, 'words1', SUBJECTS.map((s) => `w1.${s}`));
    await createStream(nc, 'counts1', ['c1.>']);
    const words = await publishWords(nc, SUBJECTS.map((s) => `w1.${s}`), 0, 8000, 37);
    const events = new JobEvents();
    const result = await run('faults', events, ['--input', 'words1', '--output', 'counts1', '--output-subject', 'c1', '--bounded', '--rate', '8000'], { failures: 5, seed: 31, minRecords: 800, maxRecords: 3000 });
    assert.equal(result.status, 'FINISHED', `job did not finish: ${result.error?.message}\n${events.describe()}`);
    assert.equal(result.injectedFailures, 5);
    assert.ok(events.restored.length >= 2, `no restart restored a checkpoint: ${events.describe()}`);
    const out = await readStream(nc, 'counts1');
    const lines = countLines(out);
    const expected = expectedRunningCounts(words);
    assert.equal(lines.length, expected.length, `${lines.length} messages for ${expected.length} running counts`);
    assert.deepEqual(lines, expected);
    assert.equal(new Set(out.map((m) => m.msgId)).size, out.length, 'every message id once');
    // Each word's counts arrive in order on its subject.
    const last = new Map<string, number>();
    for (const m of out) {
      const c = JSON.parse(m.text) as { word: string; n: number };
      assert.equal(m.subject, `c1.${c.word}`);
      assert.ok(c.n > (last.get(c.word) ?? 0), `${c.word} ${c.n} after ${last.get(c.word)}`);
      last.set(c.word, c.n);
    }
  });

  test("guarantee 'at-least-once': every running count is published at once, each at least once (no failure here: exactly once), without message ids", async () => {
    await createStream(nc, 'words2', ['w2.a', 'w2.b']);
    await createStream(nc, 'counts2', ['c2.>']);
    const words = await publishWords(nc, ['w2.a', 'w2.b'], 0, 3000, 19);
    const events = new JobEvents();
    const result = await run('alo', events, ['--input', 'words2', '--output', 'counts2', '--output-subject', 'c2', '--bounded', '--guarantee', 'at-least-once']);
    assert.equal(result.status, 'FINISHED', `job did not finish: ${result.error?.message}\n${events.describe()}`);
    const out = await readStream(nc, 'counts2');
    assert.deepEqual(countLines(out), expectedRunningCounts(words));
    assert.ok(out.every((m) => m.msgId === undefined), 'at-least-once publishes without message ids');
  });

  test('the example job as it is (examples/jetstream-counts.ts, --create-output): the stream it creates holds every running count', async () => {
    await createStream(nc, 'events', ['events.words']);
    const words = await publishWords(nc, ['events.words'], 0, 2000, 13);
    const events = new JobEvents();
    const result = await executeJob({
      job: join(import.meta.dirname, '..', '..', '..', 'examples', 'jetstream-counts.ts'),
      args: ['--servers', nats.servers, '--bounded', '--create-output', '--checkpoint-interval', '200'],
      config: { 'parallelism.default': 2, 'execution.checkpointing.dir': join(root, 'example') },
      listener: events.listener,
      log: createLogger({ level: 'error', write: () => {} }),
    });
    assert.equal(result.status, 'FINISHED', `job did not finish: ${result.error?.message}\n${events.describe()}`);
    const out = await readStream(nc, 'counts');
    assert.deepEqual(countLines(out), expectedRunningCounts(words));
    for (const m of out) assert.equal(m.subject, `counts.${(JSON.parse(m.text) as { word: string }).word}`);
  });
});
