// The pumps of a channel between two TaskManager processes, joined here without a socket: the
// producer's ring -> RingSender -> frames -> RingReceiver -> the consumer's ring. Segments arrive
// in order and only as the receiver grants credit; a priority event arrives after exactly the
// segments published before it (sent ahead without credit), so the consumer knows what it
// overtook, as with a ring between threads; segments sent without credit give none back.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RingReceiver } from '../../src/network/ring-receiver.ts';
import { RingSender } from '../../src/network/ring-sender.ts';
import { SegmentRing } from '../../src/network/segment-ring.ts';

const WINDOW = 4;
const shape = { segments: WINDOW, segmentSize: 256 };

/** `beforeAttach`: what the consumer does to its ring before the sender attaches. */
function bridge(beforeAttach?: (b: SegmentRing) => void) {
  const a = SegmentRing.create(shape);
  const b = SegmentRing.create({ segments: 2 * WINDOW, segmentSize: shape.segmentSize });
  beforeAttach?.(b);
  const frames: string[] = [];
  const credits: number[] = [];
  const budgets: Array<[number, number]> = [];
  const receiver = new RingReceiver(b, WINDOW);
  let closed = false;
  const sender: RingSender = new RingSender(a, {
    segment: (bytes, forced) => {
      frames.push(`${forced ? 'forced' : 'data'} ${bytes[0]}`);
      receiver.segment(Uint8Array.from(bytes), forced);
    },
    priority: (bytes) => {
      frames.push(`priority ${bytes[0]}`);
      receiver.priority(Uint8Array.from(bytes));
    },
    close: () => {
      closed = true;
      receiver.senderClosed();
    },
  });
  sender.start();
  receiver.attach({
    credit: (n) => {
      credits.push(n);
      // Across a socket the credit comes back later: here on the next turn.
      queueMicrotask(() => sender.credit(n));
    },
    gone: () => {},
    budget: (segments, fillBytes) => {
      budgets.push([segments, fillBytes]);
      queueMicrotask(() => sender.budget(segments, fillBytes));
    },
  });
  return { a, b, sender, receiver, frames, credits, budgets, closed: () => closed };
}

function publish(ring: SegmentRing, value: number): void {
  ring.nextSegment()[0] = value;
  ring.publish(1);
}

const turn = () => new Promise((r) => setTimeout(r, 5));

/** The consumer's side: what the ring holds, in order, with each priority event's publishedBefore. */
function consume(b: SegmentRing, state: { next: number }, release = true): string[] {
  const out: string[] = [];
  for (let p = b.takePriority(); p; p = b.takePriority()) out.push(`priority ${p.bytes[0]} after ${p.publishedBefore}`);
  while (b.published() !== state.next) {
    out.push(`segment ${b.segment(state.next)[0]}`);
    state.next = (state.next + 1) | 0;
    if (release) b.release();
  }
  return out;
}

test('segments cross in order, as far as credits go; a freed segment is a credit back; backpressure reaches the producer', async () => {
  const { a, b, frames, credits } = bridge();
  await turn();
  assert.deepEqual(credits, [WINDOW], 'the receiver grants its window when the sender is known');
  for (let i = 0; i < WINDOW; i++) publish(a, i);
  await turn();
  assert.deepEqual(frames, ['data 0', 'data 1', 'data 2', 'data 3']);
  // The window is used up: what the producer publishes now waits in its own ring, which fills.
  for (let i = 4; i < 4 + WINDOW; i++) publish(a, i);
  await turn();
  assert.equal(frames.length, WINDOW);
  assert.equal(a.freeSegments(), 0, 'the producer is out of credit: backpressure');
  const state = { next: 0 };
  assert.deepEqual(consume(b, state), ['segment 0', 'segment 1', 'segment 2', 'segment 3']);
  await turn();
  await turn();
  assert.deepEqual(frames.slice(WINDOW), ['data 4', 'data 5', 'data 6', 'data 7']);
  assert.deepEqual(consume(b, state), ['segment 4', 'segment 5', 'segment 6', 'segment 7']);
  assert.equal(a.freeSegments(), WINDOW);
});

test('a priority event overtakes over the wire: the segments before it go first without credit, and it arrives right after them', async () => {
  const { a, b, frames, credits } = bridge();
  await turn();
  for (let i = 0; i < WINDOW; i++) publish(a, i);
  await turn();
  // No credit left; two more segments wait in the producer's ring, then an unaligned barrier.
  publish(a, 4);
  publish(a, 5);
  a.publishPriority(Uint8Array.of(99));
  await turn();
  assert.deepEqual(frames, ['data 0', 'data 1', 'data 2', 'data 3', 'forced 4', 'forced 5', 'priority 99']);
  // In the consumer's ring the event says it overtook all six, as a ring between threads would.
  const state = { next: 0 };
  assert.deepEqual(consume(b, state, false), ['priority 99 after 6', 'segment 0', 'segment 1', 'segment 2', 'segment 3', 'segment 4', 'segment 5']);
  for (let i = 0; i < 6; i++) b.release();
  await turn();
  await turn();
  // Four credits for the four sent with credit; none for the two sent without.
  assert.deepEqual(credits.reduce((x, y) => x + y, 0), WINDOW + WINDOW);
  publish(a, 6);
  await turn();
  assert.deepEqual(frames.at(-1), 'data 6');
});

test('a second priority event while the consumer has not taken the first: it waits, in order, until there is room', async () => {
  const { a, b, frames } = bridge();
  await turn();
  for (let round = 0; round < 3; round++) {
    for (let i = 0; i < WINDOW; i++) publish(a, round * 10 + i);
    a.publishPriority(Uint8Array.of(90 + round));
    await turn();
  }
  // The consumer's ring holds 2 windows: the third round's segments wait in the receiver.
  assert.equal(frames.filter((f) => f.startsWith('priority')).length, 3);
  const state = { next: 0 };
  const seen: string[] = [];
  for (let i = 0; i < 20 && seen.filter((s) => s.startsWith('priority')).length < 3; i++) {
    seen.push(...consume(b, state));
    await turn();
  }
  const priorities = seen.filter((s) => s.startsWith('priority'));
  assert.deepEqual(priorities, ['priority 90 after 4', 'priority 91 after 8', 'priority 92 after 12']);
  assert.deepEqual(
    seen.filter((s) => s.startsWith('segment')).map((s) => Number(s.split(' ')[1])),
    [0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23],
  );
});

test('the producer closes its ring: what it published goes first, then the close', async () => {
  const { a, b, closed } = bridge();
  await turn();
  publish(a, 1);
  a.close();
  await turn();
  assert.ok(closed());
  assert.deepEqual(consume(b, { next: 0 }), ['segment 1']);
  assert.ok(b.closed);
});

test("buffer debloating across processes: the consumer's budget caps the credits outstanding and reaches the producer's ring; lifted, the window comes back", async () => {
  const { a, b, frames, credits, budgets } = bridge();
  await turn();
  assert.deepEqual(budgets, [], 'no budget is sent while the consumer has set none');
  b.setBudget(2, 64);
  for (let i = 0; i < WINDOW; i++) publish(a, i);
  await turn();
  const state = { next: 0 };
  assert.equal(consume(b, state).length, WINDOW);
  await turn();
  await turn();
  assert.deepEqual(budgets, [[2, 64]]);
  assert.deepEqual(a.budget(), { segments: 2, fillBytes: 64 }, "the producer's ring has the consumer's budget");
  assert.deepEqual(credits, [WINDOW, 2], 'four freed segments give back only two credits: the budget');
  assert.equal(a.credits(), 2, 'the producer may fill two segments');
  for (let i = 10; i < 14; i++) publish(a, i);
  await turn();
  assert.deepEqual(frames.slice(WINDOW), ['data 10', 'data 11'], 'two in flight at most');
  // The budget lifted: the next freed segments bring the whole window back.
  b.setBudget(b.segments, b.segmentSize);
  assert.deepEqual(consume(b, state), ['segment 10', 'segment 11']);
  await turn();
  await turn();
  assert.deepEqual(budgets.at(-1), [WINDOW, b.segmentSize - 4]);
  assert.equal(a.budget().segments, WINDOW);
  assert.deepEqual(frames.slice(WINDOW + 2), ['data 12', 'data 13']);
  assert.equal(credits.reduce((x, y) => x + y, 0) - (WINDOW + 4), WINDOW - 2, 'outstanding credits back at the window: two used, two left');
});

test("buffer debloating across processes: a budget the consumer set before the sender attached (its first) is told at attach", async () => {
  const { a, frames, credits, budgets } = bridge((b) => b.setBudget(2, 64));
  await turn();
  assert.deepEqual(budgets, [[2, 64]]);
  assert.deepEqual(credits, [2], 'two credits, not the window');
  assert.deepEqual(a.budget(), { segments: 2, fillBytes: 64 }, "the producer's ring has the consumer's budget");
  for (let i = 0; i < WINDOW; i++) publish(a, i);
  await turn();
  assert.deepEqual(frames, ['data 0', 'data 1'], 'two in flight at most');
});
