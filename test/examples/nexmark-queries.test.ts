// Nexmark's queries as weir jobs: each query's lines equal a plain computation over the same
// generated events (the final table for the retracting q18 and q19), at parallelism 1 in this
// thread and 2 and 3 on worker-thread TaskManagers, with out-of-order event times.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { executeJob } from '../../src/index.ts';
import { CollectedRecords } from '../../src/connectors/collect/index.ts';
import { applyChangelog, EXPECTED, generatedBids } from '../fixtures/nexmark-expectations.ts';
import { uniqueId } from '../fixtures/helpers.ts';

const JOB = fileURLToPath(new URL('../../examples/nexmark/nexmark.ts', import.meta.url));
const EVENTS = 12_000;
// 200 events per second of event time: 60 s of bids, so there are many windows and sessions.
const EVENT_RATE = 200;
const OOO_GROUP = 7;
const RETRACTING = new Set(['q18', 'q19']);
const bids = generatedBids({ events: EVENTS, firstEventRate: EVENT_RATE, outOfOrderGroupSize: OOO_GROUP });

function diff(got: readonly string[], expected: readonly string[]): string | undefined {
  const a = [...got].sort();
  const b = [...expected].sort();
  if (b.length === 0) return 'the plain computation has no rows: the check would compare nothing';
  for (let i = 0; i < Math.max(a.length, b.length); i++) if (a[i] !== b[i]) return `${a.length} rows, expected ${b.length}; first difference at ${i}: got ${a[i]?.slice(0, 120)}, expected ${b[i]?.slice(0, 120)}`;
  return undefined;
}

async function runQueries(queries: readonly string[], parallelism: number, taskManagers: number): Promise<Map<string, string[]>> {
  const id = uniqueId('nexmark');
  const collected = new Map(queries.map((q) => [q, new CollectedRecords<string>(`${id}-${q}`)]));
  try {
    const result = await executeJob({
      job: JOB,
      args: ['--queries', queries.join(','), '--events', String(EVENTS), '--event-rate', String(EVENT_RATE), '--ooo-group', String(OOO_GROUP), '--collect-id', id, '--checkpoint-interval', '200'],
      config: { 'parallelism.default': parallelism, 'pipeline.auto-watermark-interval': '20 ms' },
      taskManagers,
    });
    assert.equal(result.status, 'FINISHED', result.error?.message);
    const out = new Map<string, string[]>();
    for (const [q, c] of collected) out.set(q, await c.close(10_000));
    return out;
  } finally {
    for (const c of collected.values()) await c.close(1).catch(() => {});
  }
}

const QUERIES = ['q0', 'q1', 'q2', 'q5', 'q7', 'q11', 'q14', 'q15', 'q16', 'q17', 'q18', 'q19', 'q21', 'q22'];

describe('Nexmark queries against a plain computation', () => {
  for (const [parallelism, taskManagers] of [[1, 0], [2, 2], [3, 3]] as const) {
    test(`${QUERIES.join(' ')} at parallelism ${parallelism}${taskManagers ? ` on ${taskManagers} worker TaskManagers` : ' in this thread'}`, async () => {
      const results = await runQueries(QUERIES, parallelism, taskManagers);
      const problems: string[] = [];
      for (const q of QUERIES) {
        const lines = results.get(q)!;
        const got = RETRACTING.has(q) ? applyChangelog(lines) : lines;
        const d = diff(got, EXPECTED[q]!(bids));
        if (d) problems.push(`${q}: ${d}`);
      }
      assert.deepEqual(problems, []);
    });
  }
});
