// JetStreamSource with splitPerSubject: one split per concrete subject of a wildcard filter, and
// (unbounded) subjects that appear while the job runs are found and read without a restart, their
// positions kept in checkpoints: through a task failure restored from a checkpoint and a
// stop-with-savepoint resumed from the savepoint, the exactly-once JetStream output holds every
// input message once, compared record for record with what was published.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { createLogger, defineJob, executeJob, type ProcessContext, type Collector, type RuntimeContext } from '../../../src/index.ts';
import { CollectSink } from '../../../src/connectors/collect/index.ts';
import { runCollecting, uniqueId } from '../../fixtures/helpers.ts';
import { createJobMaster } from '../../../src/coordinator/execute-job.ts';
import { JetStreamSink, JetStreamSource } from '../../../src/connectors/jetstream/index.ts';
import { JobEvents } from '../../fixtures/recovery-helpers.ts';
import type { NatsCluster } from '../../fixtures/nats-cluster.ts';
import { createStream, readStream, startJetStreamTest, stopJetStreamTest } from '../../fixtures/jetstream-streams.ts';

/** Set by the test: the job's next record fails its task once (the job runs in this thread). */
const trigger = { failNext: false };

describe('JetStreamSource: subjects that appear later (splitPerSubject)', () => {
  let nats: NatsCluster;
  let nc: NatsConnection;
  let root: string;
  before(async () => void ({ nats, nc, root } = await startJetStreamTest('jetstream-discovery', { nodes: 1 })));
  after(() => stopJetStreamTest({ nats, nc, root }));

  /** `<subject> <seq> <text>` for each message published. */
  async function publish(subjects: readonly string[], from: number, to: number): Promise<string[]> {
    const js = jetstream(nc);
    const lines = await Promise.all(
      Array.from({ length: to - from }, async (_, k) => {
        const i = from + k;
        const subject = subjects[i % subjects.length]!;
        const ack = await js.publish(subject, `m${i}`);
        return `${subject} ${ack.seq} m${i}`;
      }),
    );
    return lines;
  }

  /** Waits for the output to hold `atLeast` messages; a timeout names some that are missing and what the job went through. */
  async function outputCount(stream: string, atLeast: number, what: string, published: readonly string[], diagnose: () => string): Promise<void> {
    const jsm = await jetstreamManager(nc);
    const deadline = Date.now() + 60_000;
    for (;;) {
      const n = (await jsm.streams.info(stream)).state.messages;
      if (n >= atLeast) return;
      if (Date.now() > deadline) {
        const out = new Set((await readStream(nc, stream)).map((m) => m.text));
        const missing = published.filter((line) => !out.has(line));
        throw new Error(`${what}: the output holds ${n} of ${atLeast} messages after 60 s; ${missing.length} missing, e.g. ${missing.slice(0, 5).join(' | ')}; ${diagnose()}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  test('new subjects are read without a restart, and their positions survive a failure and a savepoint', { timeout: 180_000 }, async () => {
    await createStream(nc, 'ev', ['ev.>']);
    await createStream(nc, 'evout', ['evout.>']);
    const servers = nats.servers;
    const job = defineJob((env) => {
      env.enableCheckpointing({ interval: 100, timeout: 10_000 });
      env
        .fromSource(new JetStreamSource({ connection: { servers }, stream: 'ev', subjects: ['ev.>'], splitPerSubject: true, subjectDiscoveryIntervalMs: 200, deserializer: (data, info) => `${info.subject} ${info.sequence} ${new TextDecoder().decode(data)}` }), { uid: 'js' })
        .process({
          processElement(v: string, _ctx: ProcessContext, out: Collector<string>) {
            if (trigger.failNext) {
              trigger.failNext = false;
              throw new Error('injected failure after new subjects were found');
            }
            out.collect(v);
          },
        })
        .sinkTo(new JetStreamSink<string>({ connection: { servers }, stream: 'evout', subject: 'evout.lines', serializer: (v) => v, commitRetry: { maxAttempts: 60, initialBackoffMs: 50, maxBackoffMs: 500 } }), { uid: 'out' });
    });
    const config = { 'parallelism.default': 2, 'execution.checkpointing.dir': join(root, 'checkpoints'), 'restart-strategy.type': 'fixed-delay', 'restart-strategy.fixed-delay.attempts': 10, 'restart-strategy.fixed-delay.delay': '200 ms' };
    const log = createLogger({ level: 'error', write: () => {} });
    const published: string[] = [];
    published.push(...(await publish(['ev.a', 'ev.b'], 0, 600)));

    const events = new JobEvents();
    const first = await createJobMaster({ job, config, listener: events.listener, log });
    const diagnose = () => `enumerator ${JSON.stringify(first.sourceCoordinatorMetrics())}; events ${events.describe()}`;
    const firstRun = first.run();
    await outputCount('evout', 600, 'the subjects at the start', published, diagnose);
    // Subjects the job has not seen: found by discovery, read from the job's start on.
    published.push(...(await publish(['ev.c', 'ev.d', 'ev.a'], 600, 1500)));
    await outputCount('evout', 1500, 'subjects ev.c and ev.d, new', published, diagnose);
    assert.deepEqual(Object.values(first.sourceCoordinatorMetrics()).map((m) => m['subjects']), [4], 'the enumerator has handed out ev.a to ev.d');
    const restoredBefore = events.restored.length;
    // The next record (of those below) fails its task: the restart restores the last checkpoint.
    trigger.failNext = true;
    published.push(...(await publish(['ev.c', 'ev.e', 'ev.b'], 1500, 2400)));
    await events.waitFor('a restore after the injected failure', () => events.restored.length > restoredBefore, 60_000);
    await outputCount('evout', 2400, 'after the restore, ev.e new', published, diagnose);
    const savepoint = await first.stopWithSavepoint(join(root, 'savepoints'));
    const stopped = await firstRun;
    assert.equal(stopped.status, 'FINISHED', stopped.error?.message);

    published.push(...(await publish(['ev.d', 'ev.f', 'ev.e'], 2400, 3300)));
    const second = await createJobMaster({ job, config: { ...config, 'execution.checkpointing.dir': join(root, 'checkpoints2') }, restoreFrom: savepoint.directory, log });
    const secondRun = second.run();
    await outputCount('evout', 3300, 'resumed from the savepoint, ev.f new', published, () => `resumed job: ${JSON.stringify(second.sourceCoordinatorMetrics())}`);
    await second.cancel();
    await secondRun;

    const out = (await readStream(nc, 'evout')).map((m) => m.text).sort();
    assert.equal(out.length, published.length, `${out.length} output messages for ${published.length} published`);
    assert.deepEqual(out, [...published].sort());
  });

  test('bounded: one split per subject of a wildcard, spread over 2 readers, every message once', { timeout: 60_000 }, async () => {
    await createStream(nc, 'bw', ['bw.>']);
    const published = await publish(['bw.a', 'bw.b.x', 'bw.c', 'bw.d', 'bw.e.y'], 0, 1000);
    const id = uniqueId();
    const subtasksBySubject = new Map<string, Set<number>>();
    const job = defineJob((env) => {
      env
        .fromSource(new JetStreamSource({ connection: { servers: nats.servers }, stream: 'bw', subjects: ['bw.>'], splitPerSubject: true, bounded: true, deserializer: (data, info) => `${info.subject} ${info.sequence} ${new TextDecoder().decode(data)}` }), { uid: 'js' })
        // Chained to the source: its subtask is the reader's.
        .process(() => {
          let subtask = -1;
          return {
            open(ctx: RuntimeContext) {
              subtask = ctx.subtaskIndex;
            },
            processElement(v: string, _ctx: ProcessContext, out: Collector<string>) {
              out.collect(`${v} ${subtask}`);
            },
          };
        })
        .sinkTo(new CollectSink<string>(id));
    });
    const { result, records } = await runCollecting<string>(id, () => executeJob({ job, config: { 'parallelism.default': 2 } }));
    assert.equal(result.status, 'FINISHED', result.error?.message);
    for (const r of records) {
      const [subject, , , subtask] = r.split(' ') as [string, string, string, string];
      subtasksBySubject.set(subject, (subtasksBySubject.get(subject) ?? new Set()).add(Number(subtask)));
    }
    assert.deepEqual(records.map((r) => r.split(' ').slice(0, 3).join(' ')).sort(), [...published].sort());
    // Each subject is one split: read by one reader, and both readers have some.
    for (const [subject, subtasks] of subtasksBySubject) assert.equal(subtasks.size, 1, `${subject} read by subtasks ${[...subtasks].join(', ')}`);
    assert.equal(new Set([...subtasksBySubject.values()].map((s) => [...s][0])).size, 2, 'both readers read subjects');
  });
});
