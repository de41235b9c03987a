// JetStream -> running counts -> JetStream on a private 3-node NATS cluster with both streams
// replicated 3 times: the node leading the output stream is SIGKILLed mid-run (after the third
// completed checkpoint). The job's connections move to the other nodes, publications and reads
// wait for the new stream leaders (commits are retried, a reader that fails is restarted from
// the last checkpoint), and the output stream holds every running count exactly once.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NatsConnection } from '@nats-io/transport-node';
import { createLogger, executeJob } from '../../../src/index.ts';
import { JobEvents, makeTempDir, removeDir } from '../../fixtures/recovery-helpers.ts';
import type { NatsCluster } from '../../fixtures/nats-cluster.ts';
import { connectTo, countLines, createStream, expectedRunningCounts, publishWords, readStream, startJetStreamTest, stopJetStreamTest, streamLeader } from '../../fixtures/jetstream-streams.ts';

const JOB = join(import.meta.dirname, '..', '..', 'fixtures', 'jobs', 'jetstream-counts.ts');
const SUBJECTS = ['words.a', 'words.b', 'words.c'];

describe('JetStream counts on a 3-node cluster losing a node', () => {
  let nats: NatsCluster;
  let nc: NatsConnection;
  let root: string;
  before(async () => void ({ nats, nc, root } = await startJetStreamTest('jetstream-node-loss', { nodes: 3 })));
  after(() => stopJetStreamTest({ nats, nc, root }));

  test('the output stream leader SIGKILLed mid-run: every running count exactly once', { timeout: 240_000 }, async (t) => {
    await createStream(nc, 'words', SUBJECTS, undefined, 3);
    await createStream(nc, 'counts', ['counts.>'], undefined, 3);
    const words = await publishWords(nc, SUBJECTS, 0, 15_000, 31);
    const leader = await streamLeader(nc, 'counts');
    const victim = nats.nodes.find((n) => n.name === leader);
    assert.ok(victim, `no node named ${leader}`);
    const events = new JobEvents();
    let killed: Promise<void> | undefined;
    events.onCompleted = (c) => {
      if (c.id === 3) killed ??= victim.kill();
    };
    const result = await executeJob({
      job: JOB,
      args: ['--servers', nats.servers, '--input', 'words', '--output', 'counts', '--bounded', '--rate', '3000', '--checkpoint-interval', '200'],
      config: {
        'parallelism.default': 2,
        'execution.checkpointing.dir': join(root, 'checkpoints'),
        'restart-strategy.type': 'fixed-delay',
        'restart-strategy.fixed-delay.attempts': 30,
        'restart-strategy.fixed-delay.delay': '500 ms',
      },
      listener: events.listener,
      log: createLogger({ level: 'info', write: (line) => appendFileSync(process.env.WEIR_TEST_JOB_LOG ?? '/dev/null', line + '\n') }),
    });
    assert.ok(killed, 'the job ended before its third checkpoint');
    await killed;
    assert.equal(result.status, 'FINISHED', `job did not finish: ${result.error?.message}\n${events.describe()}`);
    t.diagnostic(`killed ${victim.name} (leader of counts) after checkpoint 3; ${events.restarts.length} restart(s): ${events.restarts.map((r) => r.cause.slice(0, 160)).join(' | ')}; new leader ${await streamLeader(nc, 'counts').catch(() => '?')}`);
    const out = await readStream(nc, 'counts');
    const lines = countLines(out);
    const expected = expectedRunningCounts(words);
    assert.equal(lines.length, expected.length, `${lines.length} messages for ${expected.length} running counts`);
    assert.deepEqual(lines, expected);
  });
});
