// The JetStream sink against its output stream's duplicate window: a restore that comes later
// than the window (the restart delay longer than a 1 s window) replays the restored
// checkpoint's publications, which the server no longer recognizes: the sink reads back what it
// wrote and the output stays exact, or it refuses the restore naming the stream, the window and
// the checkpoint's age. And what is refused at start: a missing stream, a window shorter than
// the checkpoint interval plus timeout; and at commit, subjects that another stream captures.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { NatsConnection } from '@nats-io/transport-node';
import { createLogger, executeJob } from '../../../src/index.ts';
import { readSnapshot } from '../../../src/checkpoint/snapshot-reader.ts';
import { JobEvents, makeTempDir, removeDir } from '../../fixtures/recovery-helpers.ts';
import type { NatsCluster } from '../../fixtures/nats-cluster.ts';
import { connectTo, countLines, createStream, expectedRunningCounts, publishWords, readStream, startJetStreamTest, stopJetStreamTest } from '../../fixtures/jetstream-streams.ts';

const JOB = join(import.meta.dirname, '..', '..', 'fixtures', 'jobs', 'jetstream-counts.ts');

/** How many messages the JetStream sink's committables in a checkpoint hold, over all subtasks. */
async function publicationsIn(checkpoint: string): Promise<number> {
  const snap = await readSnapshot(checkpoint, { uid: 'jetstream-sink' });
  const pending = (snap.operators[0]?.operator['_sink-committables']?.values ?? []) as Array<{ committables: Array<{ messages: unknown[] }> }>;
  return pending.reduce((n, p) => n + p.committables.reduce((m, c) => m + c.messages.length, 0), 0);
}

describe('JetStream sink and the duplicate window', () => {
  let nats: NatsCluster;
  let nc: NatsConnection;
  let root: string;
  before(async () => void ({ nats, nc, root } = await startJetStreamTest('jetstream-window', { nodes: 1 })));
  after(() => stopJetStreamTest({ nats, nc, root }));

  function run(name: string, events: JobEvents, args: string[], o: { faults?: { failures: number; seed: number; minRecords: number; maxRecords: number }; restartDelay?: string; retained?: number; lines?: string[] } = {}) {
    return executeJob({
      job: JOB,
      args: ['--servers', nats.servers, ...args],
      config: {
        'parallelism.default': 2,
        'execution.checkpointing.dir': join(root, name),
        'restart-strategy.type': 'fixed-delay',
        'restart-strategy.fixed-delay.attempts': 10,
        'restart-strategy.fixed-delay.delay': o.restartDelay ?? '200 ms',
        ...(o.retained ? { 'execution.checkpointing.num-retained': o.retained } : {}),
      },
      ...(o.faults ? { faults: o.faults } : {}),
      listener: events.listener,
      log: createLogger({ level: 'info', write: (line) => o.lines?.push(line) }),
    });
  }

  async function fill(n: number, input: string, output: string, windowMs?: number): Promise<string[]> {
    const subjects = [`${input}.a`, `${input}.b`, `${input}.c`];
    await createStream(nc, input, subjects);
    await createStream(nc, output, [`${output}.>`], windowMs);
    return publishWords(nc, subjects, 0, n, 23);
  }

  test('restores later than a 1 s duplicate window: the sink reads back what it wrote, the output is exact', async () => {
    const words = await fill(6000, 'in1', 'out1', 1000);
    const events = new JobEvents();
    const lines: string[] = [];
    const result = await run('read-back', events, ['--input', 'in1', '--output', 'out1', '--output-subject', 'out1', '--bounded', '--rate', '4000', '--window-check', 'warn'], {
      faults: { failures: 2, seed: 7, minRecords: 1000, maxRecords: 2500 },
      restartDelay: '2500 ms',
      lines,
    });
    assert.equal(result.status, 'FINISHED', `job did not finish: ${result.error?.message}\n${events.describe()}`);
    assert.equal(result.injectedFailures, 2);
    assert.ok(events.restored.length >= 1, `no restart restored a checkpoint: ${events.describe()}`);
    const readBacks = lines.filter((l) => /beyond stream 'out1''s duplicate_window of 1000 ms: read back \d+ of its \d+/.test(l));
    assert.ok(readBacks.length >= 1, `no commit read back:\n${lines.filter((l) => /WARN|ERROR|read back/.test(l)).join('\n')}`);
    assert.ok(readBacks.some((l) => !/read back 0 of/.test(l)), `every read-back found nothing, so nothing was replayed: ${readBacks.join('\n')}`);
    assert.ok(lines.some((l) => /duplicate_window 1000 ms, shorter than/.test(l)), 'the short window is warned about');
    assert.deepEqual(countLines(await readStream(nc, 'out1')), expectedRunningCounts(words));
  });

  test("beyondDuplicateWindow 'refuse': the restore fails the job, naming the stream, its window and the checkpoint's age", async (t) => {
    // The refusal needs a restored checkpoint that holds publications to replay. Which checkpoint
    // the failure lands after is timing: when the source stalls (a slow fetch on a loaded
    // machine) the last completed checkpoint may hold none, and the restore rightly has nothing
    // to refuse (CI saw that once: restored checkpoint 13, job finished). So each run reads what
    // the restored checkpoint held, and only a run whose checkpoint held publications counts.
    const vacuous: string[] = [];
    for (let attempt = 1; attempt <= 3; attempt++) {
      const [input, output] = [`in2r${attempt}`, `out2r${attempt}`];
      await fill(20_000, input, output, 1000);
      const events = new JobEvents();
      // Read while the job runs: a finished job deletes its checkpoints.
      let held: Promise<number> | undefined;
      events.onRestored = ({ path }) => void (held ??= publicationsIn(path));
      const lines: string[] = [];
      const result = await run(`refuse-${attempt}`, events, ['--input', input, '--output', output, '--output-subject', output, '--bounded', '--rate', '4000', '--window-check', 'warn', '--beyond', 'refuse'], {
        faults: { failures: 1, seed: 7, minRecords: 1000, maxRecords: 2500 },
        restartDelay: '2500 ms',
        // The read above must find the restored checkpoint: the restarted attempt's next
        // checkpoint would otherwise subsume and delete it.
        retained: 1000,
        lines,
      });
      const restored = events.restored[0];
      assert.ok(restored && held, `no restart restored a checkpoint: ${events.describe()}`);
      const publications = await held;
      if (publications === 0) {
        vacuous.push(`run ${attempt}: restored checkpoint ${restored.checkpointId} held no publication; the job ended ${result.status}`);
        t.diagnostic(vacuous.at(-1)!);
        continue;
      }
      const logged = lines.filter((l) => /WARN|ERROR|refuse|duplicate_window/.test(l)).join('\n');
      assert.equal(result.status, 'FAILED', `restored checkpoint ${restored.checkpointId} held ${publications} publication(s), yet the job did not fail: ${events.describe()}\n${logged}`);
      // The refused checkpoint is the restored one or an older one whose commit it still held.
      const refused = new RegExp(`stream '${output}': checkpoint (\\d+) is \\d+ ms old, beyond the stream's duplicate_window of 1000 ms`).exec(result.error?.message ?? '');
      assert.ok(refused && Number(refused[1]) <= restored.checkpointId, `the error should name stream ${output}, a checkpoint up to ${restored.checkpointId} and the window: ${result.error?.message}`);
      return;
    }
    assert.fail(`no run restored a checkpoint holding publications, so nothing was checked:\n${vacuous.join('\n')}`);
  });

  test('a missing output stream fails the job naming the stream and the servers', async () => {
    await createStream(nc, 'in3', ['in3.a']);
    await publishWords(nc, ['in3.a'], 0, 10, 3);
    const events = new JobEvents();
    const result = await run('missing', events, ['--input', 'in3', '--output', 'nosuch', '--bounded']);
    assert.equal(result.status, 'FAILED');
    assert.match(result.error?.message ?? '', /JetStream stream 'nosuch' does not exist on nats:\/\/127\.0\.0\.1:\d+/);
  });

  test('a duplicate window shorter than checkpoint interval + timeout fails the job naming the stream and the settings', async () => {
    await createStream(nc, 'in4', ['in4.a']);
    await createStream(nc, 'out4', ['out4.>'], 1000);
    await publishWords(nc, ['in4.a'], 0, 10, 3);
    const events = new JobEvents();
    const result = await run('short', events, ['--input', 'in4', '--output', 'out4', '--output-subject', 'out4', '--bounded', '--checkpoint-interval', '100', '--checkpoint-timeout', '5000']);
    assert.equal(result.status, 'FAILED');
    assert.match(result.error?.message ?? '', /stream 'out4' has duplicate_window 1000 ms, shorter than execution\.checkpointing\.interval \(100 ms\) \+ execution\.checkpointing\.timeout \(5000 ms\)/);
  });

  test("subjects another stream captures: the commit fails for good naming both streams", async () => {
    await createStream(nc, 'in5', ['in5.a']);
    await createStream(nc, 'out5', ['out5.>']);
    await createStream(nc, 'other5', ['mis5.>']);
    await publishWords(nc, ['in5.a'], 0, 10, 3);
    const events = new JobEvents();
    const result = await run('mismatch', events, ['--input', 'in5', '--output', 'out5', '--output-subject', 'mis5', '--bounded', '--checkpoint-timeout', '5000']);
    assert.equal(result.status, 'FAILED');
    assert.match(result.error?.message ?? '', /subject mis5\.w\d is captured by stream 'other5', not by 'out5'/);
    assert.equal(events.restarts.length, 0, `no restart can help: ${events.describe()}`);
  });
});
