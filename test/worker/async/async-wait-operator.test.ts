// The async operator on a manual clock: ordered and unordered emission, watermarks, capacity,
// timeouts, retries, snapshots of what is waiting and its re-issue on restore, the end of input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AsyncRetryStrategies } from '../../../src/api/async-retry-strategy.ts';
import type { AsyncFunction, AsyncOutputMode } from '../../../src/api/async-function.ts';
import { OperatorStateBackend } from '../../../src/state/operator-state-backend.ts';
import { AsyncWaitOperator, IN_FLIGHT_STATE, type AsyncWaitSpec } from '../../../src/worker/async/async-wait-operator.ts';
import { AsyncRequestError } from '../../../src/worker/async/async-request-error.ts';
import { AsyncTimeoutError } from '../../../src/worker/async/async-timeout-error.ts';
import { ManualClock } from '../../fixtures/manual-clock.ts';
import { OperatorHarness } from '../../fixtures/operator-harness.ts';

/** A callee the test answers by hand: every call is kept with its input, signal and settle functions. */
class ManualCallee {
  readonly calls: Array<{ input: number; signal: AbortSignal; resolve: (r: Iterable<unknown>) => void; reject: (e: unknown) => void }> = [];
  readonly fn: AsyncFunction<number, unknown> = (input, signal) =>
    new Promise((resolve, reject) => {
      this.calls.push({ input, signal, resolve, reject });
    });

  /** The latest call for `input`. */
  call(input: number) {
    const c = this.calls.filter((x) => x.input === input).at(-1);
    assert.ok(c, `no call for ${input}`);
    return c;
  }

  inputs(): number[] {
    return this.calls.map((c) => c.input);
  }
}

/** Lets settled promises' callbacks run (one turn of the event loop, no timers). */
const settle = () => new Promise<void>((r) => setImmediate(r));

async function harness(mode: AsyncOutputMode, spec: Partial<AsyncWaitSpec> = {}, operatorState?: OperatorStateBackend) {
  const callee = new ManualCallee();
  const clock = new ManualClock(0);
  const op = new AsyncWaitOperator({ mode, fn: callee.fn as AsyncFunction<unknown, unknown>, capacity: 10, timeoutMs: 1000, ...spec }, clock);
  const h = new OperatorHarness(op, operatorState ? { operatorState } : {});
  await h.open();
  return { h, op, callee, clock };
}

test('ordered: results leave in the order of their records, with their timestamps', async () => {
  const { h, callee } = await harness('ordered');
  h.element(1, 100);
  h.element(2, 200);
  h.element(3, 300);
  assert.deepEqual(callee.inputs(), [1, 2, 3], 'every request is made at once');
  callee.call(3).resolve(['c']);
  callee.call(2).resolve(['b1', 'b2']);
  await settle();
  h.runMails();
  assert.deepEqual(h.output, [], 'nothing overtakes the first record');
  callee.call(1).resolve(['a']);
  await settle();
  h.runMails();
  assert.deepEqual(h.output, [
    { value: 'a', timestamp: 100 },
    { value: 'b1', timestamp: 200 },
    { value: 'b2', timestamp: 200 },
    { value: 'c', timestamp: 300 },
  ]);
});

test('ordered: a watermark leaves after the records before it', async () => {
  const { h, callee } = await harness('ordered');
  h.watermark(5);
  assert.deepEqual(h.watermarks, [5], 'nothing waiting: the watermark passes at once');
  h.element(1, 10);
  h.watermark(20);
  h.element(2, 30);
  callee.call(2).resolve(['b']);
  await settle();
  h.runMails();
  assert.deepEqual(h.watermarks, [5]);
  callee.call(1).resolve(['a']);
  await settle();
  h.runMails();
  assert.deepEqual(h.take(), ['a', 'b']);
  assert.deepEqual(h.watermarks, [5, 20]);
});

test('unordered: results leave as they complete, but never across a watermark', async () => {
  const { h, callee } = await harness('unordered');
  h.element(1, 10);
  h.element(2, 11);
  h.watermark(50);
  h.element(3, 60);
  callee.call(2).resolve(['b']);
  callee.call(3).resolve(['c']);
  await settle();
  h.runMails();
  assert.deepEqual(h.take(), ['b'], 'a record completed before the watermark leaves at once; one after it waits');
  assert.deepEqual(h.watermarks, [], 'the watermark waits for record 1');
  callee.call(1).resolve(['a']);
  await settle();
  h.runMails();
  assert.deepEqual(h.take(), ['a', 'c'], 'record 1, then (after the watermark) record 3');
  assert.deepEqual(h.watermarks, [50]);
  h.element(4, 70);
  h.element(5, 71);
  callee.call(5).resolve(['e']);
  await settle();
  h.runMails();
  assert.deepEqual(h.take(), ['e'], 'after the watermark left, the next segment emits as it completes');
});

test('capacity: no more requests than the capacity; a full operator holds its input back until one leaves', async () => {
  const { h, callee, op } = await harness('ordered', { capacity: 2 });
  h.element(1);
  assert.equal(h.inputSuspended, false);
  h.element(2);
  assert.equal(h.inputSuspended, true, 'at capacity the input is held back');
  h.element(3); // a chained upstream operator may still emit: it waits unasked
  h.watermark(7);
  assert.deepEqual(callee.inputs(), [1, 2], 'the third record is not asked for yet');
  assert.equal(op.waiting, 3);
  callee.call(2).resolve(['b']);
  await settle();
  h.runMails();
  assert.deepEqual(callee.inputs(), [1, 2], 'record 2 is complete but still in the (ordered) queue');
  callee.call(1).resolve(['a']);
  await settle();
  h.runMails();
  assert.deepEqual(h.take(), ['a', 'b']);
  assert.deepEqual(callee.inputs(), [1, 2, 3], 'room again: the waiting record is asked for');
  assert.deepEqual(h.watermarks, [], 'the watermark is behind record 3');
  assert.equal(h.inputSuspended, false, 'below capacity the input goes on');
  callee.call(3).resolve(['c']);
  await settle();
  h.runMails();
  assert.deepEqual(h.take(), ['c']);
  assert.deepEqual(h.watermarks, [7]);
});

test('timeout: the handler gives the results, the attempt is aborted, a later result is ignored', async () => {
  const { h, callee, clock } = await harness('ordered', { timeoutMs: 100, onTimeout: (input) => [`timeout ${String(input)}`] });
  h.element(1);
  clock.advance(50);
  h.element(2);
  clock.advance(50);
  assert.equal(callee.call(1).signal.aborted, true, 'the timed-out attempt is aborted');
  assert.equal(callee.call(2).signal.aborted, false);
  callee.call(1).resolve(['too late']);
  await settle();
  h.runMails();
  assert.deepEqual(h.take(), ['timeout 1']);
  callee.call(2).resolve(['b']);
  await settle();
  h.runMails();
  assert.deepEqual(h.take(), ['b']);
});

test('timeout without a handler fails naming the operator, the record and the timeout', async () => {
  const { h, clock } = await harness('unordered', { timeoutMs: 100 });
  h.element(41);
  clock.advance(100);
  await settle();
  assert.throws(
    () => h.runMails(),
    (e: unknown) => e instanceof AsyncTimeoutError && e.record === 41 && e.timeoutMs === 100 && /uid op/.test(e.message) && /record 41/.test(e.message),
  );
});

test('fixed-delay retry: an error is tried again after the delay; when attempts run out the task fails naming the record', async () => {
  const retry = AsyncRetryStrategies.fixedDelay({ maxAttempts: 3, delay: 20 });
  const { h, callee, clock } = await harness('ordered', { retry, timeoutMs: 10_000 });
  h.element(7);
  callee.call(7).reject(new Error('HTTP 500'));
  await settle();
  assert.equal(callee.calls.length, 1, 'no retry before the delay');
  clock.advance(19);
  assert.equal(callee.calls.length, 1);
  clock.advance(1);
  assert.equal(callee.calls.length, 2, 'second attempt after 20 ms');
  callee.call(7).reject(new Error('HTTP 500'));
  await settle();
  clock.advance(20);
  assert.equal(callee.calls.length, 3);
  callee.call(7).reject(new Error('HTTP 503'));
  await settle();
  clock.advance(1000);
  assert.equal(callee.calls.length, 3, 'three attempts in all');
  assert.throws(
    () => h.runMails(),
    (e: unknown) => e instanceof AsyncRequestError && e.record === 7 && e.attempts === 3 && /HTTP 503/.test(e.message) && /uid op/.test(e.message),
  );
});

test('retry predicates: only matching errors and results are retried; a result the last attempt gives is taken', async () => {
  const retry = AsyncRetryStrategies.fixedDelay<unknown>({ maxAttempts: 2, delay: 5, ifError: (e) => (e as Error).message === 'retryable', ifResult: (r) => r.length === 0 });
  const { h, callee, clock } = await harness('unordered', { retry });
  h.element(1);
  h.element(2);
  callee.call(1).resolve([]);
  callee.call(2).reject(new Error('fatal'));
  await settle();
  clock.advance(5);
  assert.deepEqual(callee.inputs(), [1, 2, 1], 'the empty result is asked again, the fatal error is not');
  callee.call(1).resolve([]);
  await settle();
  assert.throws(() => h.runMails(), (e: unknown) => e instanceof AsyncRequestError && e.record === 2 && e.attempts === 1);
  assert.deepEqual(h.take(), [], 'the failure comes before any result is emitted');
});

test('a result that comes after a retry was scheduled and the timeout passed is ignored; the retry never starts', async () => {
  const retry = AsyncRetryStrategies.fixedDelay({ maxAttempts: 5, delay: 80 });
  const { h, callee, clock } = await harness('ordered', { retry, timeoutMs: 100, onTimeout: () => ['t'] });
  h.element(1);
  callee.call(1).reject(new Error('x'));
  await settle();
  clock.advance(100);
  assert.equal(callee.calls.length, 2, 'the retry at 80 ms ran');
  assert.equal(callee.calls[1]!.signal.aborted, true, 'the timeout at 100 ms aborted it');
  callee.calls[1]!.resolve(['late']);
  await settle();
  h.runMails();
  assert.deepEqual(h.take(), ['t']);
  clock.advance(1000);
  assert.equal(callee.calls.length, 2);
});

test('exponential backoff: delays double up to the maximum', () => {
  const s = AsyncRetryStrategies.exponentialBackoff({ maxAttempts: 6, initialDelay: 10, maxDelay: '50 ms' });
  assert.deepEqual([1, 2, 3, 4, 5].map((a) => s.backoffMs(a)), [10, 20, 40, 50, 50]);
  assert.deepEqual([1, 5, 6].map((a) => s.canRetry(a)), [true, true, false]);
  assert.equal(s.retryOnError?.(new Error('any')), true, 'every error is retried by default');
  assert.equal(s.retryOnResult, undefined, 'no result is retried by default');
  assert.throws(() => AsyncRetryStrategies.fixedDelay({ maxAttempts: 0, delay: 1 }), /maxAttempts/);
  assert.throws(() => AsyncRetryStrategies.exponentialBackoff({ maxAttempts: 2, initialDelay: 100, maxDelay: 10 }), /maxDelay/);
});

test('a snapshot keeps every record still waiting (complete or not, asked for or not); a restore asks for them again', async () => {
  const { h, callee, op } = await harness('ordered', { capacity: 2 });
  h.element(1, 10);
  h.element(2, 20);
  h.element(3); // waits unasked: capacity
  callee.call(2).resolve(['b']); // complete, but behind record 1
  await settle();
  h.runMails();
  op.prepareSnapshot(1);
  const stored = h.operatorState.states.get(IN_FLIGHT_STATE)!.values;
  assert.deepEqual(stored, [{ input: 1, timestamp: 10 }, { input: 2, timestamp: 20 }, { input: 3 }]);

  const restored = new OperatorStateBackend(new Map([[IN_FLIGHT_STATE, { mode: 'split' as const, values: structuredClone(stored) }]]));
  const again = await harness('ordered', { capacity: 2 }, restored);
  assert.deepEqual(again.callee.inputs(), [1, 2], 'the restore asks again, up to the capacity');
  assert.equal(again.h.inputSuspended, true);
  again.callee.call(1).resolve(['a']);
  again.callee.call(2).resolve(['b']);
  await settle();
  again.h.runMails();
  again.callee.call(3).resolve(['c']);
  await settle();
  again.h.runMails();
  assert.deepEqual(again.h.output, [
    { value: 'a', timestamp: 10 },
    { value: 'b', timestamp: 20 },
    { value: 'c', timestamp: undefined },
  ]);
});

test('the end of input waits for every request, emitting results as they come', async () => {
  const { h, callee, op } = await harness('ordered', { capacity: 1 });
  h.element(1);
  h.element(2);
  let ended = false;
  const end = Promise.resolve(op.endInput()).then(() => (ended = true));
  callee.call(1).resolve(['a']);
  await settle();
  assert.deepEqual(h.take(), ['a'], 'while draining, results leave without mail');
  assert.equal(ended, false);
  callee.call(2).resolve(['b']);
  await end;
  assert.deepEqual(h.take(), ['b']);
  assert.equal(h.pendingMails, 0);
});

test('a failure while draining fails the end of input', async () => {
  const { h, callee, op } = await harness('unordered');
  h.element(9);
  const end = Promise.resolve(op.endInput());
  callee.call(9).reject(new Error('boom'));
  await assert.rejects(end, (e: unknown) => e instanceof AsyncRequestError && e.record === 9);
});

test('close aborts the requests in flight and stops their timeouts and retries', async () => {
  const { h, callee, op, clock } = await harness('ordered', { timeoutMs: 100 });
  h.element(1);
  op.close();
  assert.equal(callee.call(1).signal.aborted, true);
  clock.advance(1000);
  callee.call(1).resolve(['late']);
  await settle();
  h.runMails();
  assert.deepEqual(h.take(), []);
  assert.equal(clock.pendingTimers, 0);
});

test('a function that throws at once, or returns something not iterable, counts as a failed attempt', async () => {
  const retry = AsyncRetryStrategies.fixedDelay({ maxAttempts: 2, delay: 1 });
  let calls = 0;
  const fn = ((x: number) => {
    calls++;
    if (x === 1) throw new Error('sync');
    return Promise.resolve(42 as unknown as Iterable<unknown>);
  }) as AsyncFunction<unknown, unknown>;
  const clock = new ManualClock(0);
  const op = new AsyncWaitOperator({ mode: 'ordered', fn, capacity: 5, timeoutMs: 1000, retry }, clock);
  const h = new OperatorHarness(op);
  await h.open();
  h.element(2);
  await settle();
  clock.advance(1);
  await settle();
  assert.equal(calls, 2);
  assert.throws(() => h.runMails(), (e: unknown) => e instanceof AsyncRequestError && /not an iterable/.test(e.message));
  h.element(1);
  assert.equal(calls, 3);
});

test('a function that declares no signal is called with the record alone; its timeout still gives the handler its results', async () => {
  // A rest parameter sees every argument passed; its length (0) is set to a one-parameter function's.
  const seen: unknown[][] = [];
  const pending: Array<(r: Iterable<unknown>) => void> = [];
  const spy = (...a: unknown[]) =>
    new Promise<Iterable<unknown>>((resolve) => {
      seen.push(a);
      pending.push(resolve);
    });
  Object.defineProperty(spy, 'length', { value: 1 });
  const clock = new ManualClock(0);
  const op = new AsyncWaitOperator({ mode: 'ordered', fn: spy as AsyncFunction<unknown, unknown>, capacity: 10, timeoutMs: 100, onTimeout: (input) => [`timeout ${String(input)}`] }, clock);
  const h = new OperatorHarness(op, {});
  await h.open();
  h.element(1);
  h.element(2);
  assert.deepEqual(seen, [[1], [2]], 'no signal argument is passed');
  pending[0]!(['a']);
  await settle();
  h.runMails();
  assert.deepEqual(h.take(), ['a']);
  clock.advance(100);
  h.runMails();
  assert.deepEqual(h.take(), ['timeout 2'], 'the timeout works without a signal to abort');
  pending[1]!(['too late']);
  await settle();
  h.runMails();
  assert.deepEqual(h.take(), []);
});
