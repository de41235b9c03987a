// The start-up wait's backoff on a manual clock: delays double up to the cap, each retry is told
// its attempt and next delay, the last pause is cut to the time left, a timeout ends it with the
// last error as the cause, and an error that waiting cannot mend ends it at once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { retryWithBackoff, RetryTimeoutError, type RetryNotice } from '../../src/ha/retry-with-backoff.ts';
import { ManualClock } from '../fixtures/manual-clock.ts';

class Unavailable extends Error {}

const flush = () => new Promise((r) => setImmediate(r));

/** Advances the clock to each pending pause until `done` settles (bounded). */
async function drive(clock: ManualClock, done: Promise<unknown>, notices: RetryNotice[]): Promise<void> {
  let settled = false;
  void done.then(() => (settled = true), () => (settled = true));
  for (let i = 0; i < 100 && !settled; i++) {
    await flush();
    const last = notices.at(-1);
    if (last && clock.pendingTimers > 0) clock.advance(last.nextDelayMs);
  }
  await flush();
}

test('doubles the delay up to the cap and succeeds when the store answers', async () => {
  const clock = new ManualClock();
  const notices: RetryNotice[] = [];
  let calls = 0;
  const result = retryWithBackoff(
    async (n) => {
      calls = n;
      if (n < 6) throw new Unavailable(`no leader yet (${n})`);
      return 'ready';
    },
    { timeoutMs: 60_000, initialDelayMs: 250, maxDelayMs: 2000, retryable: (e) => e instanceof Unavailable, onRetry: (r) => notices.push(r), clock },
  );
  await drive(clock, result, notices);
  assert.equal(await result, 'ready');
  assert.equal(calls, 6);
  assert.deepEqual(notices.map((r) => [r.attempt, r.nextDelayMs]), [[1, 250], [2, 500], [3, 1000], [4, 2000], [5, 2000]]);
  assert.equal(notices[2]!.elapsedMs, 750);
  assert.equal(notices[2]!.error.message, 'no leader yet (3)');
});

test('past the timeout: the last pause is cut to what is left, then a RetryTimeoutError with the last error as its cause', async () => {
  const clock = new ManualClock();
  const notices: RetryNotice[] = [];
  const result = retryWithBackoff(
    async (n) => {
      throw new Unavailable(`timeout (${n})`);
    },
    { timeoutMs: 1000, initialDelayMs: 300, maxDelayMs: 5000, retryable: () => true, onRetry: (r) => notices.push(r), clock },
  );
  await drive(clock, result, notices);
  const error = await result.then(() => assert.fail('it gave up'), (e: unknown) => e);
  assert.ok(error instanceof RetryTimeoutError, String(error));
  assert.equal(error.attempts, 4);
  assert.equal(error.elapsedMs, 1000);
  assert.equal((error.cause as Error).message, 'timeout (4)');
  // 300, 600, then 1200 would pass the timeout: cut to the 100 ms left.
  assert.deepEqual(notices.map((r) => [r.nextDelayMs, r.remainingMs]), [[300, 700], [600, 100], [100, 0]]);
});

test('an error waiting cannot mend ends it at once, unwrapped', async () => {
  const clock = new ManualClock();
  const notices: RetryNotice[] = [];
  const refused = new Error('authorization violation');
  let calls = 0;
  await assert.rejects(
    retryWithBackoff(
      async () => {
        calls++;
        throw refused;
      },
      { timeoutMs: 60_000, initialDelayMs: 250, maxDelayMs: 5000, retryable: (e) => e instanceof Unavailable, onRetry: (r) => notices.push(r), clock },
    ),
    (e) => e === refused,
  );
  assert.equal(calls, 1);
  assert.equal(notices.length, 0);
});

test('a timeout of 0: one attempt', async () => {
  const clock = new ManualClock();
  await assert.rejects(
    retryWithBackoff(() => Promise.reject(new Unavailable('down')), { timeoutMs: 0, initialDelayMs: 250, maxDelayMs: 5000, retryable: () => true, onRetry: () => assert.fail('no retry'), clock }),
    (e) => e instanceof RetryTimeoutError && e.attempts === 1,
  );
});
