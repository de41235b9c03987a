// Async I/O against a real HTTP server (node:http on loopback, random latency, some 500s): the
// enrichment job's committed output must be exactly what an independent computation gives, with
// the records in flight at a checkpoint or a stop-with-savepoint asked for again after the restore,
// and no more requests in flight than the capacity, as the server counts them. The runs with five
// injected failures are in async-enrichment-failures.long.test.ts, the SIGKILLs beside it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createLogger, createJobMaster, executeJob, type ExecuteJobOptions, type JobResult } from '../../../src/index.ts';
import { diffSortedLines, JobEvents, makeTempDir, readCommittedLines, removeDir } from '../../fixtures/recovery-helpers.ts';
import { EnrichmentServer, enrichedValue } from '../../fixtures/enrichment-server.ts';

const JOB = join(import.meta.dirname, '..', '..', 'fixtures', 'jobs', 'async-enrichment.ts');

/** The output computed without the engine: every id enriched once, and running counts 1..n per id % 10 group. */
function expectedLines(count: number): string[] {
  const lines: string[] = [];
  const groups = new Map<number, number>();
  for (let id = 0; id < count; id++) {
    lines.push(`enriched ${id} ${enrichedValue(id)}`);
    const k = (groups.get(id % 10) ?? 0) + 1;
    groups.set(id % 10, k);
    lines.push(`count ${id % 10} ${k}`);
  }
  return lines;
}

function assertExact(output: string, count: number, what: string): void {
  const lines = readCommittedLines(output);
  assert.equal(lines.length, 2 * count, `${what}: ${lines.length} committed lines for ${count} ids`);
  assert.equal(diffSortedLines(lines, expectedLines(count)), undefined, `${what}: the committed output is not exactly-once`);
}

const restarts = { 'restart-strategy.type': 'fixed-delay', 'restart-strategy.fixed-delay.attempts': 20, 'restart-strategy.fixed-delay.delay': '50 ms' } as const;

let root: string;
let server: EnrichmentServer;
before(async () => {
  root = makeTempDir('async-enrichment');
  server = await EnrichmentServer.start({ minLatencyMs: 1, maxLatencyMs: 15, errorRate: 0.05 });
});
after(async () => {
  await server.close();
  removeDir(root);
});

describe('async enrichment over HTTP', { timeout: 180_000 }, () => {
  test('the records in flight at a checkpoint are asked for again after the restore, and capacity bounds the requests in flight', async () => {
    const COUNT = 400;
    const CAPACITY = 8;
    const HELD = 100;
    const dir = join(root, 'reissue');
    const output = join(dir, 'output');
    const s = await EnrichmentServer.start({ minLatencyMs: 2, maxLatencyMs: 8, errorRate: 0.05 });
    try {
      // Ordered: while 100 is held, nothing after it leaves, the queue fills (100..107) and the input stops.
      s.hold([HELD]);
      const events = new JobEvents();
      const options: ExecuteJobOptions = {
        job: JOB,
        args: ['--server', s.url, '--count', String(COUNT), '--output', output, '--mode', 'ordered', '--capacity', String(CAPACITY), '--checkpoint-interval', '50'],
        config: { 'parallelism.default': 1, 'execution.checkpointing.dir': join(dir, 'checkpoints'), ...restarts },
        listener: events.listener,
        log: createLogger({ level: 'error' }),
      };
      const master = await createJobMaster(options);
      const result: Promise<JobResult> = master.run();
      await s.heldArrival(HELD);
      await events.waitFor('the queue to fill behind the held record', () => s.requests.has(HELD + CAPACITY - 1));
      // A checkpoint taken now holds 100..107 as operator state, and the source's position after 107.
      const after = events.completed.length;
      await events.waitFor('a checkpoint with the held records in flight', () => events.completed.length >= after + 2);
      assert.deepEqual([...s.requests.keys()].filter((id) => id >= HELD).sort((a, b) => a - b), Array.from({ length: CAPACITY }, (_, i) => HELD + i), 'exactly the capacity was asked for');
      // The held request now fails with a status the job does not retry: the task fails and restores that checkpoint.
      s.failOnce(HELD, 409);
      s.release();
      const r = await result;
      assert.equal(r.status, 'FINISHED', `job did not finish: ${r.error?.message}; ${events.describe()}`);
      assert.equal(events.restarts.length, 1, events.describe());
      assert.match(events.restarts[0]!.cause, /uid enrich/);
      assert.match(events.restarts[0]!.cause, /record 100\b/);
      assert.match(events.restarts[0]!.cause, /HTTP 409/);
      for (let id = HELD; id < HELD + CAPACITY; id++) {
        assert.ok((s.requests.get(id) ?? 0) >= 2, `record ${id}, in flight at the checkpoint, was asked for again after the restore (${s.requests.get(id)} requests)`);
      }
      assert.ok(s.maxInFlight <= CAPACITY, `at most ${CAPACITY} requests in flight at once, the server saw ${s.maxInFlight}`);
      assertExact(output, COUNT, 'after the restore');
    } finally {
      await s.close();
    }
  });

  test('stop-with-savepoint with requests in flight, then resume from the savepoint: exact output, the waiting records asked for again', async () => {
    const COUNT = 400;
    const CAPACITY = 6;
    const HELD = 150;
    const dir = join(root, 'stop');
    const output = join(dir, 'output');
    const s = await EnrichmentServer.start({ minLatencyMs: 2, maxLatencyMs: 8, errorRate: 0.05 });
    try {
      s.hold([HELD]);
      const options = (restoreFrom?: string): ExecuteJobOptions => ({
        job: JOB,
        args: ['--server', s.url, '--count', String(COUNT), '--output', output, '--mode', 'unordered', '--capacity', String(CAPACITY), '--checkpoint-interval', '100'],
        config: { 'parallelism.default': 1, 'execution.checkpointing.dir': join(dir, 'checkpoints'), ...restarts },
        log: createLogger({ level: 'error' }),
        ...(restoreFrom ? { restoreFrom } : {}),
      });
      const events = new JobEvents();
      const first = await createJobMaster({ ...options(), listener: events.listener });
      const run = first.run();
      await s.heldArrival(HELD);
      await events.waitFor('the queue to fill behind the held record', () => s.requests.has(HELD + CAPACITY - 1));
      // Unordered: the records after 150 left, 150 waits, and the queue took more until it was full.
      const stop = await first.stopWithSavepoint(join(dir, 'savepoints'));
      const r1 = await run;
      assert.equal(r1.status, 'FINISHED', `the stopped job ended ${r1.status}: ${r1.error?.message}`);
      assert.equal(s.requests.get(HELD), 1);
      assert.ok(!readCommittedLines(output).includes(`enriched ${HELD} ${enrichedValue(HELD)}`), 'the held record has no output yet');
      s.release();

      const resumed = new JobEvents();
      const r2 = await executeJob({ ...options(stop.directory), listener: resumed.listener });
      assert.equal(r2.status, 'FINISHED', `the resumed job ended ${r2.status}: ${r2.error?.message}`);
      assert.deepEqual(resumed.restored.map((x) => x.checkpointId), [stop.id]);
      // Once more from the savepoint, and again after each random failure it was answered with.
      assert.equal(s.requests.get(HELD)! - (s.randomErrors.get(HELD) ?? 0), 2, 'the record in flight at the stop was asked for again from the savepoint');
      assertExact(output, COUNT, 'stopped and resumed');
    } finally {
      await s.close();
    }
  });
});
