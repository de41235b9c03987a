// The restart strategies, each on its own with the time of each failure given: whether the job
// restarts and after how long. Jitter draws from a `random` the test controls.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildConfig } from '../../src/config/configuration.ts';
import { createRestartStrategy, exponentialDelay, type RestartDecision, type RestartStrategy } from '../../src/coordinator/restart-strategy.ts';

const T0 = 1_000_000;

/** The delay of a restart, or fails the test when the decision is not to restart. */
function delayOf(d: RestartDecision): number {
  assert.ok(d.restart, `expected a restart, got: ${d.restart ? '' : d.reason}`);
  return d.delayMs;
}

function refused(d: RestartDecision): string {
  assert.equal(d.restart, false, 'expected no restart');
  return d.restart ? '' : d.reason;
}

/** A `random` that returns the given values in turn. */
function sequence(...values: number[]): () => number {
  let i = 0;
  return () => values[i++ % values.length]!;
}

test('none never restarts', () => {
  const s = createRestartStrategy(buildConfig({ 'restart-strategy.type': 'none' }));
  assert.equal(s.description, 'none');
  assert.match(refused(s.onFailure(T0)), /restart strategy is none/);
  assert.match(refused(s.onFailure(T0 + 3_600_000)), /none/);
});

test('fixed-delay restarts `attempts` times after `delay`, then refuses, however much time passes', () => {
  const s = createRestartStrategy(buildConfig({ 'restart-strategy.type': 'fixed-delay', 'restart-strategy.fixed-delay.attempts': 3, 'restart-strategy.fixed-delay.delay': '2 s' }));
  assert.equal(delayOf(s.onFailure(T0)), 2000);
  assert.equal(delayOf(s.onFailure(T0 + 10)), 2000);
  assert.equal(delayOf(s.onFailure(T0 + 1e9)), 2000, 'attempts are not renewed by time');
  assert.match(refused(s.onFailure(T0 + 2e9)), /used all 3 attempts/);
  assert.match(refused(s.onFailure(T0 + 3e9)), /used all 3 attempts/);
});

test('fixed-delay with 0 attempts refuses the first failure', () => {
  const s = createRestartStrategy(buildConfig({ 'restart-strategy.type': 'fixed-delay', 'restart-strategy.fixed-delay.attempts': 0 }));
  assert.match(refused(s.onFailure(T0)), /used all 0 attempts/);
});

test('failure-rate restarts while at most max failures fall within the interval; the window slides with now', () => {
  const s = createRestartStrategy(
    buildConfig({
      'restart-strategy.type': 'failure-rate',
      'restart-strategy.failure-rate.max-failures-per-interval': 2,
      'restart-strategy.failure-rate.failure-rate-interval': 1000,
      'restart-strategy.failure-rate.delay': 300,
    }),
  );
  assert.equal(delayOf(s.onFailure(T0)), 300);
  assert.equal(delayOf(s.onFailure(T0 + 400)), 300);
  // T0 is exactly one interval ago: out of the window, which holds T0+400 and T0+1000.
  assert.equal(delayOf(s.onFailure(T0 + 1000)), 300);
  // T0+400, T0+1000 and T0+1399 within 1000 ms: one too many.
  assert.match(refused(s.onFailure(T0 + 1399)), /3 failures within 1000 ms \(at most 2\)/);
});

test('failure-rate: failures spread wider than the interval restart forever', () => {
  const s = createRestartStrategy(
    buildConfig({ 'restart-strategy.type': 'failure-rate', 'restart-strategy.failure-rate.max-failures-per-interval': 1, 'restart-strategy.failure-rate.failure-rate-interval': 1000 }),
  );
  for (let i = 0; i < 20; i++) assert.equal(delayOf(s.onFailure(T0 + i * 1000)), 1000, `failure ${i + 1}`);
  assert.match(refused(s.onFailure(T0 + 19_999)), /2 failures within 1000 ms \(at most 1\)/);
});

const exp = { initial: 100, max: 1000, multiplier: 2, resetThreshold: 10_000, jitter: 0, attemptsBeforeReset: Number.MAX_SAFE_INTEGER };

test('exponential-delay starts at the initial backoff, grows by the multiplier and stays at max-backoff', () => {
  for (const r of [0, 0.5, 0.999]) {
    const s = exponentialDelay(exp, () => r); // jitter 0: whatever random() says
    const delays = Array.from({ length: 7 }, (_, i) => delayOf(s.onFailure(T0 + i)));
    assert.deepEqual(delays, [100, 200, 400, 800, 1000, 1000, 1000]);
  }
});

test('exponential-delay with a fractional multiplier', () => {
  const s = exponentialDelay({ ...exp, initial: 1000, max: 60_000, multiplier: 1.5 });
  assert.deepEqual(
    Array.from({ length: 4 }, (_, i) => delayOf(s.onFailure(T0 + i))),
    [1000, 1500, 2250, 3375],
  );
});

test('exponential-delay jitter spreads each delay by at most the jitter factor either way, and never beyond max-backoff', () => {
  // random() 0 is the low end (-factor), 0.5 the middle, just below 1 the high end (+factor).
  const low = exponentialDelay({ ...exp, jitter: 0.1 }, () => 0);
  assert.deepEqual([0, 1, 2, 3, 4, 5].map((i) => delayOf(low.onFailure(T0 + i))), [90, 180, 360, 720, 900, 900], 'the backoff itself stays at max-backoff');
  const mid = exponentialDelay({ ...exp, jitter: 0.1 }, () => 0.5);
  assert.deepEqual([0, 1, 2].map((i) => delayOf(mid.onFailure(T0 + i))), [100, 200, 400]);
  const high = exponentialDelay({ ...exp, jitter: 0.1 }, () => 0.999999);
  assert.deepEqual([0, 1, 2, 3, 4].map((i) => delayOf(high.onFailure(T0 + i))), [110, 220, 440, 880, 1000], 'capped at max-backoff');

  const values = [0, 0.13, 0.5, 0.77, 0.999, 0.25, 0.6, 0.01, 0.9, 0.42];
  const s = exponentialDelay({ ...exp, jitter: 0.3 }, sequence(...values));
  let backoff = exp.initial;
  for (let i = 0; i < values.length; i++) {
    const d = delayOf(s.onFailure(T0 + i));
    const expected = Math.min(exp.max, Math.round(backoff + (values[i]! * 2 - 1) * backoff * 0.3));
    assert.equal(d, expected, `failure ${i + 1}`);
    assert.ok(d >= Math.floor(backoff * 0.7) && d <= Math.min(exp.max, Math.ceil(backoff * 1.3)), `failure ${i + 1}: ${d} within 30% of ${backoff}`);
    backoff = Math.min(backoff * 2, exp.max);
  }
});

test('exponential-delay goes back to the initial backoff after the quiet threshold, not before', () => {
  const s = exponentialDelay(exp);
  assert.equal(delayOf(s.onFailure(T0)), 100);
  assert.equal(delayOf(s.onFailure(T0 + 1000)), 200);
  assert.equal(delayOf(s.onFailure(T0 + 1000 + 9_999)), 400, 'quiet for less than the threshold: the streak goes on');
  const last = T0 + 1000 + 9_999;
  assert.equal(delayOf(s.onFailure(last + 10_000)), 100, 'quiet for the threshold: reset');
  assert.equal(delayOf(s.onFailure(last + 10_001)), 200);
});

test('exponential-delay allows attempts-before-reset restarts in one streak; a quiet period renews them', () => {
  const s = exponentialDelay({ ...exp, attemptsBeforeReset: 3 });
  assert.deepEqual([0, 1, 2].map((i) => delayOf(s.onFailure(T0 + i))), [100, 200, 400]);
  assert.match(refused(s.onFailure(T0 + 3)), /used all 3 attempts before a reset/);
  assert.equal(delayOf(s.onFailure(T0 + 3 + 10_000)), 100, 'after the quiet threshold the attempts start again');
  assert.equal(delayOf(s.onFailure(T0 + 3 + 10_001)), 200);
});

test('exponential-delay from the configuration, with the random given', () => {
  const s = createRestartStrategy(
    buildConfig({
      'execution.checkpointing.interval': '1 s',
      'restart-strategy.type': 'exponential-delay',
      'restart-strategy.exponential-delay.initial-backoff': '50 ms',
      'restart-strategy.exponential-delay.max-backoff': '300 ms',
      'restart-strategy.exponential-delay.backoff-multiplier': 3,
      'restart-strategy.exponential-delay.reset-backoff-threshold': '1 min',
      'restart-strategy.exponential-delay.jitter-factor': 0.5,
      'restart-strategy.exponential-delay.attempts-before-reset-backoff': 4,
    }),
    () => 0,
  );
  assert.match(s.description, /^exponential-delay/);
  assert.deepEqual([0, 1, 2, 3].map((i) => delayOf(s.onFailure(T0 + i))), [25, 75, 150, 150]);
  assert.match(refused(s.onFailure(T0 + 4)), /4 attempts/);
  assert.equal(delayOf(s.onFailure(T0 + 4 + 60_000)), 25);
});

test('unset, the strategy is exponential-delay when checkpointing is on and none when it is off', () => {
  const kind = (s: RestartStrategy) => s.description.split(' ')[0];
  assert.equal(kind(createRestartStrategy(buildConfig({ 'execution.checkpointing.interval': '10 s' }))), 'exponential-delay');
  assert.equal(kind(createRestartStrategy(buildConfig({ 'execution.checkpointing.interval': '10 s', 'execution.checkpointing.mode': 'at-least-once' }))), 'exponential-delay');
  assert.equal(kind(createRestartStrategy(buildConfig({}))), 'none', 'no interval: checkpointing is off');
  assert.equal(kind(createRestartStrategy(buildConfig({ 'execution.checkpointing.interval': '10 s', 'execution.checkpointing.mode': 'at-most-once' }))), 'none', 'at-most-once takes no checkpoints');
  // The default exponential-delay: 1 s initial backoff, x1.5, jitter 0.1 (random 0.5 is no jitter).
  const d = createRestartStrategy(buildConfig({ 'execution.checkpointing.interval': '10 s' }), () => 0.5);
  assert.deepEqual([0, 1, 2].map((i) => delayOf(d.onFailure(T0 + i))), [1000, 1500, 2250]);
  assert.match(refused(createRestartStrategy(buildConfig({})).onFailure(T0)), /none/);
  // Set explicitly, the type wins over the default choice.
  assert.equal(kind(createRestartStrategy(buildConfig({ 'restart-strategy.type': 'fixed-delay' }))), 'fixed-delay');
  assert.equal(kind(createRestartStrategy(buildConfig({ 'execution.checkpointing.interval': '10 s', 'restart-strategy.type': 'none' }))), 'none');
});
