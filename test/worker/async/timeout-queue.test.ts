// The async operator's timeouts: one timer for all requests, and settled requests let go of at
// once rather than when the (long) timeout of the oldest passes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TimeoutQueue } from '../../../src/worker/async/timeout-queue.ts';
import { ManualClock } from '../../fixtures/manual-clock.ts';

class Request {
  settled = false;
  timedOutCount = 0;
  timedOut(): void {
    this.timedOutCount++;
    this.settled = true;
  }
}

test('requests that settle are let go of as new ones come, long before their timeout', () => {
  const clock = new ManualClock(0);
  const queue = new TimeoutQueue<Request>(clock, 60_000);
  const refs: Array<WeakRef<Request>> = [];
  const live = new Set<Request>();
  for (let i = 0; i < 1000; i++) {
    const r = new Request();
    queue.add(r);
    refs.push(new WeakRef(r));
    live.add(r);
    if (i >= 100) {
      // Requests settle in about the order they came: 100 in flight at a time.
      const old = refs[i - 100]!.deref()!;
      old.settled = true;
      live.delete(old);
    }
  }
  // What the queue still holds: the requests since the oldest unsettled one, at most twice the in-flight ones.
  assert.ok(queue.held <= 2 * 100 + 64, `the queue holds ${queue.held} requests for 100 in flight`);
  clock.advance(60_000);
  assert.equal([...live].every((r) => r.timedOutCount === 1), true, 'the unsettled ones time out');
  assert.equal(queue.held, 0);
});

test('a request settled in the middle is skipped at its deadline; the next deadline is armed', () => {
  const clock = new ManualClock(0);
  const queue = new TimeoutQueue<Request>(clock, 100);
  const a = new Request();
  const b = new Request();
  const c = new Request();
  queue.add(a);
  clock.advance(10);
  queue.add(b);
  clock.advance(10);
  queue.add(c);
  b.settled = true;
  clock.advance(80);
  assert.deepEqual([a.timedOutCount, b.timedOutCount, c.timedOutCount], [1, 0, 0]);
  clock.advance(20);
  assert.deepEqual([a.timedOutCount, b.timedOutCount, c.timedOutCount], [1, 0, 1]);
});
