// Nexmark q12 counts bids per bidder in processing-time windows, so which window a bid falls in
// depends on when it is read: checked by invariants. Windows are well-formed (aligned, one size),
// no (bidder, window) is emitted twice, and no bidder is counted more bids than it made; windows
// still open when the bounded input ends are dropped (as in Flink), so the counts may fall short.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { executeJob } from '../../src/index.ts';
import { CollectedRecords } from '../../src/connectors/collect/index.ts';
import { generatedBids } from '../fixtures/nexmark-expectations.ts';
import { uniqueId } from '../fixtures/helpers.ts';

const JOB = fileURLToPath(new URL('../../examples/nexmark/nexmark.ts', import.meta.url));
const EVENTS = 6000;
const WINDOW = 400;

test('q12 at parallelism 2: processing-time windows are well-formed and count no bid twice', async () => {
  const id = uniqueId('nexmark-q12');
  const collected = new CollectedRecords<string>(`${id}-q12`);
  let lines: string[];
  try {
    const result = await executeJob({ job: JOB, args: ['--queries', 'q12', '--events', String(EVENTS), '--rate', '2000', '--q12-window', String(WINDOW), '--collect-id', id], config: { 'parallelism.default': 2 } });
    assert.equal(result.status, 'FINISHED', result.error?.message);
    lines = await collected.close(10_000);
  } finally {
    await collected.close(1).catch(() => {});
  }
  const made = new Map<number, number>();
  for (const b of generatedBids({ events: EVENTS })) made.set(b.bidder, (made.get(b.bidder) ?? 0) + 1);
  const counted = new Map<number, number>();
  const seen = new Set<string>();
  for (const line of lines) {
    const [bidder, n, start, end] = line.split('\t').map(Number) as [number, number, number, number];
    assert.equal(end - start, WINDOW, `window of ${line}`);
    assert.equal(start % WINDOW, 0, `window of ${line} is aligned`);
    assert.ok(n >= 1, `a window with no bids was emitted: ${line}`);
    assert.ok(!seen.has(`${bidder}@${start}`), `bidder ${bidder}'s window ${start} emitted twice`);
    seen.add(`${bidder}@${start}`);
    counted.set(bidder, (counted.get(bidder) ?? 0) + n);
  }
  assert.ok(lines.length > 0, 'some windows closed while the input was read');
  for (const [bidder, n] of counted) assert.ok(n <= (made.get(bidder) ?? 0), `bidder ${bidder} counted ${n} bids, made ${made.get(bidder) ?? 0}`);
  assert.ok(new Set(lines.map((l) => l.split('\t')[2])).size >= 2, 'more than one window closed');
});
