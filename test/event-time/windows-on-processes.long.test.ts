// Event-time windows on TaskManager processes: a JobManager and two `weir taskmanager` processes
// on loopback, records (with their timestamps in the frames) and watermarks crossing between
// processes over TCP. Tumbling, sliding and session windows over out-of-order events commit
// exactly the results of the independent computation.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { diffSortedLines, makeTempDir, readCommittedLines, removeDir } from '../fixtures/recovery-helpers.ts';
import { spawnWeir } from '../fixtures/weir-process.ts';
import { TestCluster } from '../fixtures/weir-cluster.ts';
import { generatedEvents, sessionSums, slidingSums } from '../fixtures/event-time-expectations.ts';
import { EVENT_TIME_START } from '../fixtures/jobs/event-time-job.ts';

const JOB = join(import.meta.dirname, '..', 'fixtures', 'jobs', 'event-time-job.ts');
const EVENTS = 8000;
const OOO = 400;
const events = generatedEvents({ seed: 7, events: EVENTS, keys: 20, ooo: OOO, start: EVENT_TIME_START });

let root: string;
let cluster: TestCluster;
before(() => {
  root = makeTempDir('windows-on-processes');
});
after(() => {
  cluster?.killAll();
  removeDir(root);
});

test('tumbling, sliding and session windows on two TaskManager processes equal the independent computation', { timeout: 180_000 }, async () => {
  cluster = new TestCluster({ root, defines: { 'heartbeat.interval': '1 s', 'heartbeat.timeout': '10 s', 'pipeline.auto-watermark-interval': '20 ms' } });
  await cluster.startJobManager();
  await cluster.startTaskManager({ id: 'tm-a', slots: 2 });
  await cluster.startTaskManager({ id: 'tm-b', slots: 2 });
  const kinds = [
    { kind: 'tumbling', args: ['--size', '1000'], expected: slidingSums(events, 1000, 1000), p: 2 },
    { kind: 'sliding', args: ['--size', '1000', '--slide', '250'], expected: slidingSums(events, 1000, 250), p: 4 },
    { kind: 'session', args: ['--gap', '60'], expected: sessionSums(events, 60), p: 3 },
  ];
  for (const k of kinds) {
    const output = join(root, `out-${k.kind}`);
    const run = spawnWeir(
      ['run', JOB, '-m', cluster.address, '-p', String(k.p), '--checkpoint-dir', join(root, `checkpoints-${k.kind}`), '--', '--kind', k.kind, '--events', String(EVENTS), '--ooo', String(OOO), '--output', output, '--checkpoint-interval', '200', '--rate', '20000', ...k.args],
      cluster.env,
    );
    assert.equal(await run.finished(90_000), 0, run.tail());
    const diff = diffSortedLines(readCommittedLines(output), k.expected);
    assert.equal(diff, undefined, `${k.kind} windows at p${k.p} on processes: ${diff}`);
  }
});
