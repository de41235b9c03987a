// Async enrichment over HTTP in a `weir run` process that is SIGKILLed (no chance to clean up)
// with requests in flight and resumed from its newest retained checkpoint, several times, then run
// to its end: the committed output must be exactly what an independent computation gives.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { killAndResume, resumeToEnd } from '../../fixtures/kill-and-resume.ts';
import { diffSortedLines, makeTempDir, readCommittedLines, removeDir, sleep } from '../../fixtures/recovery-helpers.ts';
import { completedCheckpoints, spawnWeir, weirEnv, type WeirProcess } from '../../fixtures/weir-process.ts';
import { EnrichmentServer, enrichedValue } from '../../fixtures/enrichment-server.ts';

const JOB = join(import.meta.dirname, '..', '..', 'fixtures', 'jobs', 'async-enrichment.ts');
const COUNT = 4000;

let root: string;
let server: EnrichmentServer;
before(async () => {
  root = makeTempDir('async-sigkill');
  server = await EnrichmentServer.start({ minLatencyMs: 20, maxLatencyMs: 60, errorRate: 0.05 });
});
after(async () => {
  await server.close();
  removeDir(root);
});

function expectedLines(): string[] {
  const lines: string[] = [];
  const groups = new Map<number, number>();
  for (let id = 0; id < COUNT; id++) {
    lines.push(`enriched ${id} ${enrichedValue(id)}`);
    const k = (groups.get(id % 10) ?? 0) + 1;
    groups.set(id % 10, k);
    lines.push(`count ${id % 10} ${k}`);
  }
  return lines;
}

test('SIGKILL with requests in flight and resume from the latest checkpoint, three times, then finish: exactly-once output', { timeout: 240_000 }, async () => {
  const checkpointDir = join(root, 'checkpoints');
  const output = join(root, 'output');
  const start = (from: string | undefined): WeirProcess =>
    spawnWeir(
      ['run', JOB, '-p', '2', '--task-managers', '2', '--checkpoint-dir', checkpointDir, ...(from ? ['--from-savepoint', from] : []), '--', '--server', server.url, '--count', String(COUNT), '--output', output, '--rate', '600', '--mode', 'unordered', '--capacity', '30', '--checkpoint-interval', '100'],
      weirEnv(root),
    );
  const latest = await killAndResume({
    start,
    checkpointDir,
    kills: 3,
    beforeKill: async (run, round) => {
      await run.waitFor('two completed checkpoints', (r) => completedCheckpoints(r).length >= 2, 60_000);
      await sleep([10, 45, 80][round]!);
      // A request has just arrived: it is in flight (20 ms at least) when the process is killed.
      await server.nextArrival();
    },
    afterKill: () => {
      const lines = readCommittedLines(output);
      assert.equal(new Set(lines).size, lines.length, 'a committed line appears twice');
      assert.ok(lines.length < 2 * COUNT, 'all output was committed before the last kill: make the input larger');
    },
  });
  await resumeToEnd(start, latest, 120_000);
  const diff = diffSortedLines(readCommittedLines(output), expectedLines());
  assert.equal(diff, undefined, `committed output is not exactly-once: ${diff}`);
  assert.ok(server.repeated().length > 0, 'no record was asked for twice: the kills came when nothing was in flight');
});
