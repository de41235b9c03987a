// q19's step before the exchange (LocalTopBids) must not change what the query emits: for every
// way the lanes' bids can interleave at the auction's subtask, the changelog with the step is the
// changelog without it, record for record. Bids of the generator, dealt to lanes as the source
// deals event numbers; each lane keeps its order, as a channel does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Bid } from '../../src/connectors/nexmark/index.ts';
import { LocalTopBids, rankBid } from '../../examples/nexmark/queries.ts';
import { generatedBids } from '../fixtures/nexmark-expectations.ts';

/** TopBids' changelog for bids in this order: its rule (rankBid) per auction, without keyed state. */
function changelog(bids: readonly Bid[]): string[] {
  const tops = new Map<number, Bid[]>();
  const out: string[] = [];
  for (const b of bids) {
    const ranked = rankBid(tops.get(b.auction) ?? [], b);
    if (ranked === undefined) continue;
    out.push(...ranked.lines);
    tops.set(b.auction, ranked.next);
  }
  return out;
}

/** Each lane's bids through a LocalTopBids of its own, marking which it let through. */
function passedByLane(lanes: readonly Bid[][]): Array<Set<Bid>> {
  return lanes.map((lane) => {
    const passed = new Set<Bid>();
    const step = new LocalTopBids();
    for (const b of lane) step.processElement(b, undefined as never, { collect: (x: Bid) => void passed.add(x) } as never);
    return passed;
  });
}

/** The lanes merged in a seeded random order that keeps each lane's own order. */
function interleave(lanes: readonly Bid[][], seed: number): Bid[] {
  const at = lanes.map(() => 0);
  const out: Bid[] = [];
  let x = seed >>> 0 || 1;
  while (out.length < lanes.reduce((n, l) => n + l.length, 0)) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    const open = lanes.map((_, i) => i).filter((i) => at[i]! < lanes[i]!.length);
    const lane = open[(x >>> 0) % open.length]!;
    out.push(lanes[lane]![at[lane]!++]!);
  }
  return out;
}

test('q19: with LocalTopBids before the exchange, the changelog is the same in every interleaving of the lanes', () => {
  const bids = generatedBids({ events: 60_000 });
  for (const laneCount of [1, 2, 3]) {
    const lanes: Bid[][] = Array.from({ length: laneCount }, () => []);
    bids.forEach((b, i) => lanes[i % laneCount]!.push(b));
    const passed = passedByLane(lanes);
    const kept = passed.reduce((n, s) => n + s.size, 0);
    // The step must drop something, or this compared nothing.
    assert.ok(kept < bids.length * 0.8, `${laneCount} lanes: only ${bids.length - kept} of ${bids.length} bids dropped`);
    for (const seed of [1, 42]) {
      const order = interleave(lanes, seed * laneCount);
      const without = changelog(order);
      const withStep = changelog(order.filter((b) => passed.some((s) => s.has(b))));
      assert.ok(without.length > 500, 'the changelog has records');
      // The first difference, not a diff of thousands of lines (assert's diff of them takes minutes).
      const at = without.findIndex((line, i) => withStep[i] !== line);
      assert.equal(at === -1 ? withStep.length : at, without.length, `${laneCount} lanes, seed ${seed}: first difference at record ${at}: ${withStep[at]} against ${without[at]}`);
    }
  }
});
