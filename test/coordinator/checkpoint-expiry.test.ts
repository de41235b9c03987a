// Checkpoints that cannot complete in time expire, with a reason that names the subtask that held
// them up and what it was doing. Expiries count against execution.checkpointing.tolerable-failed-
// checkpoints: beyond it the job fails over (and restarts), within it the job keeps running.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createJobMaster, createLogger, defineJob } from '../../src/index.ts';
import { JobEvents, LaneSource, StuckOnceSink } from '../fixtures/recovery-helpers.ts';

const STUCK_MS = 750;

/** A steady source feeding (over the network, not chained) a sink that hangs for 750 ms once, after 600 records. */
async function startStuckJob(tolerable: number) {
  const sink = new StuckOnceSink<unknown>(600, STUCK_MS);
  const job = defineJob((env) => {
    env.enableCheckpointing({ interval: 100, timeout: '300 ms', tolerableFailures: tolerable });
    env
      .fromSource(new LaneSource([{ prefix: 'k', count: 3000, keys: 50, ratePerSecond: 3000 }]), { name: 'Source: steady', uid: 'source' })
      .rebalance()
      .sinkTo(sink, { name: 'Sink: stuck', uid: 'sink' });
  });
  const events = new JobEvents();
  const master = await createJobMaster({
    job,
    config: {
      'restart-strategy.type': 'fixed-delay',
      'restart-strategy.fixed-delay.attempts': 5,
      'restart-strategy.fixed-delay.delay': '50 ms',
    },
    listener: events.listener,
    log: createLogger({ level: 'error' }),
  });
  return { master, sink, events, result: master.run() };
}

/**
 * The reason of an expiry while the sink hangs: it names the subtask and what it is doing (on a
 * loaded machine the source may not have acknowledged within 300 ms either, and is named first).
 */
const EXPIRED = /^checkpoint \d+ expired after 300 ms before completing: [12] of 2 subtasks had not acknowledged — (?:'Source: steady' subtask 1\/1: [^;]*(?:; [^']*)?; )?'Sink: stuck' subtask 1\/1: waiting for the sink/;
/** Any expiry held up by the sink (a slow disk, say, in a busy test run). */
const EXPIRED_AT_SINK = /^checkpoint \d+ expired after 300 ms before completing: 1 of 2 subtasks had not acknowledged — 'Sink: stuck' subtask 1\/1: /;

describe('checkpoint expiry', () => {
  test('tolerable failed checkpoints 0: the first expiry fails the job over, and it restarts', async () => {
    const { master, sink, events, result } = await startStuckJob(0);
    const r = await result;
    assert.equal(r.status, 'FINISHED', `job did not finish: ${r.error?.message}`);
    assert.ok(sink.stuckAt !== undefined, 'the sink never got stuck');

    const expired = master.checkpoints.stats.history().filter((s) => s.status === 'FAILED' && /expired/.test(s.failureMessage ?? ''));
    assert.equal(expired.length, 1, `expected one expiry: ${events.describe()}`);
    assert.match(expired[0]!.failureMessage!, EXPIRED);
    assert.ok(expired[0]!.failureTimestamp! - expired[0]!.triggerTimestamp >= 300, 'expired before the timeout');

    assert.equal(master.restarts, 1, `expected one restart: ${events.describe()}`);
    assert.equal(master.exceptions.length, 1);
    const cause = master.exceptions[0]!;
    assert.equal(cause.restarted, true);
    assert.equal(cause.error.name, 'CheckpointFailureError');
    assert.match(cause.error.message, /^exceeded checkpoint tolerable failure threshold \(1 consecutive failures, execution\.checkpointing\.tolerable-failed-checkpoints is 0\)/);
    assert.match(cause.error.message, /'Sink: stuck' subtask 1\/1: waiting for the sink/);
    // The restart restored the latest checkpoint completed by then. That may be one triggered
    // between the expiry and the failover, completing while the failed attempt was being
    // cancelled (the restart waits for it): a consistent snapshot all the same.
    assert.equal(events.restored.length, 1);
    const completedBefore = events.completed.filter((c) => c.completedAt <= events.restoredAt[0]!).map((c) => c.id);
    assert.equal(events.restored[0]!.checkpointId, Math.max(...completedBefore));
  });

  test('tolerable failed checkpoints 3: up to three expiries in a row do not fail the job', async () => {
    const { master, sink, events, result } = await startStuckJob(3);
    const r = await result;
    assert.equal(r.status, 'FINISHED', `job did not finish: ${r.error?.message}`);
    assert.ok(sink.stuckAt !== undefined && sink.releasedAt !== undefined, 'the sink never got stuck');

    const history = master.checkpoints.stats.history();
    const expired = history.filter((s) => s.status === 'FAILED');
    // Stuck for 750 ms with a 300 ms timeout and checkpoints back to back: two or three expiries
    // in a row, all tolerated (a fourth would fail the job over).
    assert.ok(expired.length >= 2, `expected at least 2 expiries: ${events.describe()}`);
    assert.match(expired[0]!.failureMessage ?? '', EXPIRED);
    for (const s of expired) assert.match(s.failureMessage ?? '', EXPIRED_AT_SINK);
    assert.equal(master.restarts, 0, `the job restarted: ${events.describe()}`);
    assert.deepEqual(master.exceptions, []);
    assert.equal(events.restored.length, 0);
    // Once the sink moves again, checkpoints complete again.
    const lastExpired = Math.max(...expired.map((s) => s.id));
    assert.ok(
      history.some((s) => s.status === 'COMPLETED' && s.id > lastExpired),
      `no checkpoint completed after the expiries: ${events.describe()}`,
    );
  });
});
