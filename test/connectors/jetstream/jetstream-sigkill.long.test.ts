// examples/jetstream-counts.ts (its test job: the input rate limited) under `weir run`,
// SIGKILLed twice while it runs and resumed from its newest retained checkpoint each time, then
// run to its end: the output stream holds every running count of the input exactly once (an
// independent count of the published words). The killed runs leave publications of their last
// checkpoints behind, which the resumed ones publish again with the same message ids: the
// server drops them.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { NatsConnection } from '@nats-io/transport-node';
import { killAndResume, resumeToEnd } from '../../fixtures/kill-and-resume.ts';
import { completedCheckpoints, spawnWeir, weirEnv, type WeirProcess } from '../../fixtures/weir-process.ts';
import { makeTempDir, removeDir } from '../../fixtures/recovery-helpers.ts';
import type { NatsCluster } from '../../fixtures/nats-cluster.ts';
import { connectTo, countLines, createStream, expectedRunningCounts, publishWords, readStream, startJetStreamTest, stopJetStreamTest } from '../../fixtures/jetstream-streams.ts';

const JOB = join(import.meta.dirname, '..', '..', 'fixtures', 'jobs', 'jetstream-counts.ts');
const SUBJECTS = ['words.a', 'words.b', 'words.c'];

describe('JetStream counts under weir run, SIGKILLed and resumed', () => {
  let nats: NatsCluster;
  let nc: NatsConnection;
  let root: string;
  before(async () => void ({ nats, nc, root } = await startJetStreamTest('jetstream-sigkill', { nodes: 1 })));
  after(() => stopJetStreamTest({ nats, nc, root }));

  test('two SIGKILLs: the output stream holds every running count exactly once', { timeout: 240_000 }, async () => {
    await createStream(nc, 'words', SUBJECTS);
    await createStream(nc, 'counts', ['counts.>']);
    const words = await publishWords(nc, SUBJECTS, 0, 24_000, 41);
    const checkpointDir = join(root, 'checkpoints');
    const start = (from: string | undefined): WeirProcess =>
      spawnWeir(
        ['run', JOB, '-p', '2', '--checkpoint-dir', checkpointDir, '-D', 'rest.port=0', ...(from ? ['--from-savepoint', from] : []), '--', '--servers', nats.servers, '--input', 'words', '--output', 'counts', '--bounded', '--rate', '2000', '--checkpoint-interval', '200'],
        weirEnv(root),
      );
    const latest = await killAndResume({
      start,
      checkpointDir,
      kills: 2,
      beforeKill: (run) => {
        const before = completedCheckpoints(run).length;
        return run.waitFor('3 more completed checkpoints', (r) => completedCheckpoints(r).length >= before + 3, 60_000);
      },
    });
    const beforeEnd = await readStream(nc, 'counts');
    assert.ok(beforeEnd.length > 0, 'the killed runs published nothing');
    assert.ok(beforeEnd.length < words.length, 'the killed runs published everything: make the input larger');
    await resumeToEnd(start, latest, 120_000);
    const out = await readStream(nc, 'counts');
    const lines = countLines(out);
    const expected = expectedRunningCounts(words);
    assert.equal(lines.length, expected.length, `${lines.length} messages for ${expected.length} running counts`);
    assert.deepEqual(lines, expected);
  });
});
