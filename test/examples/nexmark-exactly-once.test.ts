// Nexmark exactly-once: q5 (sliding windows), q7 (tumbling windows) and q19 (top 10 per auction, a
// changelog, behind a step that drops bids before the exchange) committed
// through the FileSink across injected failures on worker TaskManagers equal the plain computation
// record for record; and the source through stop-with-savepoint at parallelism 2 and resume at 3
// delivers every bid once (q0) with the windows' open state carried over (q5).
// The first run reads 1,000 events per second: two checkpoints complete long before its 10 s of
// input end, even on a loaded machine.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createJobMaster, executeJob } from '../../src/index.ts';
import { diffSortedLines, JobEvents, makeTempDir, readCommittedLines, removeDir } from '../fixtures/recovery-helpers.ts';
import { EXPECTED, generatedBids } from '../fixtures/nexmark-expectations.ts';

const JOB = fileURLToPath(new URL('../../examples/nexmark/nexmark.ts', import.meta.url));
const EVENTS = 10_000;
const EVENT_RATE = 200;
const OOO_GROUP = 5;
const bids = generatedBids({ events: EVENTS, firstEventRate: EVENT_RATE, outOfOrderGroupSize: OOO_GROUP });
const args = (queries: string, output: string) => ['--queries', queries, '--events', String(EVENTS), '--event-rate', String(EVENT_RATE), '--ooo-group', String(OOO_GROUP), '--output', output, '--checkpoint-interval', '100'];

let root: string;
before(() => {
  root = makeTempDir('nexmark-exactly-once');
});
after(() => removeDir(root));

/**
 * A committed changelog's rows with their net count (+ lines minus - lines). Lines are read sorted,
 * so the order per key is gone: a row lost or committed twice shows as a count other than 0 or 1.
 */
function netRows(lines: readonly string[]): Map<string, number> {
  const net = new Map<string, number>();
  for (const line of lines) {
    const row = line.slice(2);
    net.set(row, (net.get(row) ?? 0) + (line.startsWith('+\t') ? 1 : line.startsWith('-\t') ? -1 : NaN));
  }
  return net;
}

test('q5, q7 and q19 at parallelism 2 on 2 worker TaskManagers: committed results are exact after 4 injected failures', async () => {
  const dir = join(root, 'failures');
  const output = join(dir, 'output');
  const events = new JobEvents();
  const result = await executeJob({
    job: JOB,
    args: [...args('q5,q7,q19', output), '--rate', '4000'],
    config: {
      'parallelism.default': 2,
      'pipeline.auto-watermark-interval': '20 ms',
      'execution.checkpointing.dir': join(dir, 'checkpoints'),
      'restart-strategy.type': 'fixed-delay',
      'restart-strategy.fixed-delay.attempts': 20,
      'restart-strategy.fixed-delay.delay': '20 ms',
    },
    taskManagers: 2,
    faults: { failures: 4, seed: 51, minRecords: 500, maxRecords: 4000 },
    listener: events.listener,
  });
  assert.equal(result.status, 'FINISHED', `${result.error?.message}; ${events.describe()}`);
  assert.equal(result.injectedFailures, 4);
  assert.ok(events.restored.length >= 1, `a restart restored a checkpoint: ${events.describe()}`);
  for (const q of ['q5', 'q7']) {
    const expected = EXPECTED[q]!(bids);
    assert.ok(expected.length > 0);
    assert.equal(diffSortedLines(readCommittedLines(join(output, q)), expected), undefined, `${q} is not exactly-once`);
  }
  // q19's changelog (its top 10s, behind LocalTopBids): every row netted to 0 or 1, the 1s the final table.
  const net = netRows(readCommittedLines(join(output, 'q19')));
  const wrong = [...net].filter(([, n]) => n !== 0 && n !== 1);
  assert.deepEqual(wrong.slice(0, 5), [], `q19: ${wrong.length} rows committed other than once net`);
  const table = [...net].filter(([, n]) => n === 1).map(([row]) => row).sort();
  const expected = EXPECTED.q19!(bids);
  assert.ok(expected.length > 100);
  assert.equal(diffSortedLines(table, expected), undefined, 'q19 is not exactly-once');
});

test('with delayed events (held back up to 2 s of event time, sent late): every bid once (q0) after 3 injected failures at parallelism 2', async () => {
  const dir = join(root, 'delayed');
  const output = join(dir, 'output');
  const events = new JobEvents();
  const delayed = ['--prob-delayed', '0.2', '--delay-sec', '2'];
  const result = await executeJob({
    job: JOB,
    args: [...args('q0', output), ...delayed, '--rate', '4000'],
    config: {
      'parallelism.default': 2,
      'execution.checkpointing.dir': join(dir, 'checkpoints'),
      'restart-strategy.type': 'fixed-delay',
      'restart-strategy.fixed-delay.attempts': 20,
      'restart-strategy.fixed-delay.delay': '20 ms',
    },
    faults: { failures: 3, seed: 52, minRecords: 500, maxRecords: 4000 },
    listener: events.listener,
  });
  assert.equal(result.status, 'FINISHED', `${result.error?.message}; ${events.describe()}`);
  assert.equal(result.injectedFailures, 3);
  assert.ok(events.restored.length >= 1, `a restart restored a checkpoint: ${events.describe()}`);
  assert.equal(diffSortedLines(readCommittedLines(join(output, 'q0')), EXPECTED.q0!(bids)), undefined, 'q0 with delayed events is not exactly-once');
});

test('stop with savepoint at parallelism 2, resume at 3: every bid once (q0) and every hot-items window once (q5)', async () => {
  const output = join(root, 'savepoint-output');
  const a = new JobEvents();
  const first = await createJobMaster({ job: JOB, args: [...args('q0,q5', output), '--rate', '1000'], config: { 'parallelism.default': 2, 'pipeline.auto-watermark-interval': '20 ms' }, listener: a.listener });
  const firstDone = first.run();
  await first.whenRunning();
  await a.waitFor('two completed checkpoints', () => a.completed.length >= 2);
  const sp = await first.stopWithSavepoint(join(root, 'savepoints'));
  assert.equal((await firstDone).status, 'FINISHED');
  const before = readCommittedLines(join(output, 'q0')).length;
  assert.ok(before > 0 && before < bids.length, `the stop came mid-stream: ${before} of ${bids.length} bids committed`);

  const b = new JobEvents();
  const resumed = await executeJob({ job: JOB, args: [...args('q0,q5', output), '--rate', '20000'], config: { 'parallelism.default': 3, 'pipeline.auto-watermark-interval': '20 ms' }, restoreFrom: sp.directory, listener: b.listener });
  assert.equal(resumed.status, 'FINISHED', resumed.error?.message);
  assert.deepEqual(b.restored.map((r) => r.isSavepoint), [true]);
  for (const q of ['q0', 'q5']) assert.equal(diffSortedLines(readCommittedLines(join(output, q)), EXPECTED[q]!(bids)), undefined, `${q} across the savepoint`);
});
