// JetStream -> running counts -> JetStream on a private 3-node NATS cluster (both streams
// replicated 3 times) that goes away whole mid-run, after the third completed checkpoint: all
// three servers SIGKILLed and started again on the same ports and stores, or all three frozen
// with SIGSTOP (connections open, nothing answers) and continued. Each stays away until the job
// has felt it (the sinks' commits failed three times, a checkpoint failed or the job restarted).
// While it is away the job waits: readers get nothing, checkpoints complete and keep the sinks'
// messages, commits are retried. After the cluster is back the job goes
// on and the output stream holds every running count exactly once: the same lines as a count
// computed here from the published words.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NatsConnection } from '@nats-io/transport-node';
import { createLogger, executeJob } from '../../../src/index.ts';
import { JobEvents } from '../../fixtures/recovery-helpers.ts';
import type { NatsCluster } from '../../fixtures/nats-cluster.ts';
import { connectTo, countLines, createStream, expectedRunningCounts, publishWords, readStream, startJetStreamTest, stopJetStreamTest } from '../../fixtures/jetstream-streams.ts';

const JOB = join(import.meta.dirname, '..', '..', 'fixtures', 'jobs', 'jetstream-counts.ts');

describe('JetStream counts while the whole NATS cluster is down for a while', () => {
  let nats: NatsCluster;
  let nc: NatsConnection;
  let root: string;
  before(async () => void ({ nats, nc, root } = await startJetStreamTest('jetstream-cluster-down', { nodes: 3 })));
  after(() => stopJetStreamTest({ nats, nc, root }));

  const outages = {
    'SIGKILL, restart on the same ports and stores': {
      down: (c: NatsCluster) => Promise.all(c.nodes.map((n) => n.kill())),
      up: (c: NatsCluster) => Promise.all(c.nodes.map((n) => n.start())),
    },
    'SIGSTOP, then SIGCONT': {
      down: async (c: NatsCluster) => c.nodes.forEach((n) => n.pause()),
      up: async (c: NatsCluster) => {
        c.nodes.forEach((n) => n.resume());
        await c.ready();
      },
    },
  };

  let run = 0;
  for (const [name, outage] of Object.entries(outages)) {
    test(`all 3 servers ${name}: every running count exactly once`, { timeout: 300_000 }, async (t) => {
      run++;
      // The previous test's connection may have given up on reconnecting while its cluster was away.
      await nc.close().catch(() => {});
      nc = await connectTo(nats.servers);
      const subjects = [`w${run}.a`, `w${run}.b`, `w${run}.c`];
      await createStream(nc, `words${run}`, subjects, undefined, 3);
      await createStream(nc, `counts${run}`, [`c${run}.>`], undefined, 3);
      const words = await publishWords(nc, subjects, 0, 12_000, 29);
      const events = new JobEvents();
      let down: Promise<unknown> | undefined;
      let commitAttempts = 0;
      events.onCompleted = (c) => {
        if (c.id === 3) down ??= outage.down(nats);
      };
      const job = executeJob({
        job: JOB,
        args: ['--servers', nats.servers, '--input', `words${run}`, '--output', `counts${run}`, '--output-subject', `c${run}`, '--bounded', '--rate', '2000', '--checkpoint-interval', '200', '--checkpoint-timeout', '5000'],
        config: {
          'parallelism.default': 2,
          'execution.checkpointing.dir': join(root, `checkpoints${run}`),
          'restart-strategy.type': 'fixed-delay',
          'restart-strategy.fixed-delay.attempts': 1000,
          'restart-strategy.fixed-delay.delay': '500 ms',
        },
        listener: events.listener,
        log: createLogger({
          level: 'info',
          write: (line) => {
            const retry = /commit of checkpoint \d+ failed \(attempt (\d+)\)/.exec(line);
            if (retry) commitAttempts = Math.max(commitAttempts, Number(retry[1]));
            appendFileSync(process.env.WEIR_TEST_JOB_LOG ?? '/dev/null', line + '\n');
          },
        }),
      });
      await events.waitFor('the third checkpoint', () => down, 120_000);
      await down;
      const downAt = Date.now();
      // Away until the job has felt it: the sinks failed to publish a completed checkpoint three
      // times (they retry; checkpoints go on completing meanwhile, their messages kept), or a
      // checkpoint failed, or a task failed and the job restarted.
      const felt = await events.waitFor(
        'three failed commits, a failed checkpoint or a restart',
        () => (commitAttempts >= 3 ? `${commitAttempts} commit attempts failed` : (events.failed.find((f) => f.id > 3)?.reason ?? events.restarts.find(() => true)?.cause)),
        120_000,
      );
      const awayMs = Date.now() - downAt;
      await outage.up(nats);
      const result = await job;
      assert.equal(result.status, 'FINISHED', `job did not finish: ${result.error?.message}\n${events.describe()}`);
      t.diagnostic(`cluster away ${awayMs} ms (felt: ${felt.slice(0, 160)}); ${events.failed.length} failed checkpoint(s), ${events.restarts.length} restart(s): ${events.restarts.map((r) => r.cause.slice(0, 120)).join(' | ')}`);
      // The test's own connection may have given up on reconnecting while the cluster was away.
      await nc.close().catch(() => {});
      nc = await connectTo(nats.servers);
      const out = await readStream(nc, `counts${run}`);
      const lines = countLines(out);
      const expected = expectedRunningCounts(words);
      assert.equal(lines.length, expected.length, `${lines.length} messages for ${expected.length} running counts`);
      assert.deepEqual(lines, expected);
    });
  }
});
