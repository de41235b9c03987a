// Async I/O against a real HTTP server (node:http on loopback, random latency, some 500s): the
// enrichment job's committed output must be exactly what an independent computation gives across
// five injected failures, ordered in this thread and unordered on worker TaskManagers.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createLogger, executeJob } from '../../../src/index.ts';
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

describe('async enrichment over HTTP with injected failures', { timeout: 300_000 }, () => {
  const cases = [
    { mode: 'ordered', parallelism: 2, taskManagers: 0, seed: 31 },
    { mode: 'unordered', parallelism: 2, taskManagers: 2, seed: 32 },
  ];
  for (const c of cases) {
    const where = c.taskManagers === 0 ? 'in this thread' : `on ${c.taskManagers} worker TaskManagers`;
    test(`${c.mode}, parallelism ${c.parallelism} ${where}: exactly-once output after 5 injected failures`, async () => {
      const COUNT = 1500;
      const dir = join(root, `${c.mode}-p${c.parallelism}`);
      const output = join(dir, 'output');
      const events = new JobEvents();
      const errorsBefore = server.errors;
      const result = await executeJob({
        job: JOB,
        args: ['--server', server.url, '--count', String(COUNT), '--output', output, '--rate', '3000', '--mode', c.mode, '--capacity', '20'],
        config: { 'parallelism.default': c.parallelism, 'execution.checkpointing.dir': join(dir, 'checkpoints'), ...restarts },
        taskManagers: c.taskManagers,
        faults: { failures: 5, seed: c.seed, minRecords: 150, maxRecords: 900 },
        listener: events.listener,
        log: createLogger({ level: 'error' }),
      });
      assert.equal(result.status, 'FINISHED', `job did not finish: ${result.error?.message}; ${events.describe()}`);
      assert.equal(result.injectedFailures, 5);
      assert.ok(events.restored.length >= 2, `no restart restored a checkpoint: ${events.describe()}`);
      assert.ok(server.errors > errorsBefore, 'the server answered no request with 500: the retries were not tried');
      assertExact(output, COUNT, `${c.mode} p${c.parallelism}`);
    });
  }

});
