// The commit retrier and the committable collector with a fake committer that fails transiently,
// then permanently, on a manual clock: retries back off and succeed once the target is back, a
// commit that keeps failing (or is refused) fails with a CommitFailedError naming target and committable.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CommitRetrier, backoffMs, type CommitOrigin } from '../../../src/worker/sink/commit-retrier.ts';
import { CommitFailedError } from '../../../src/worker/sink/commit-failed-error.ts';
import { CommittableCollector } from '../../../src/worker/sink/committable-collector.ts';
import type { Committer } from '../../../src/api/two-phase-committing-sink.ts';
import { ManualClock } from '../../fixtures/manual-clock.ts';

/** A target that is down for its first `failures` commits; what it committed, once each. */
class FlakyCommitter implements Committer<string> {
  readonly target = 'fake database db1.orders';
  readonly visible = new Set<string>();
  attempts = 0;
  failures: number;
  refuse = false;
  constructor(failures: number) {
    this.failures = failures;
  }
  commit(committables: readonly string[]): void {
    this.attempts++;
    if (this.refuse) throw Object.assign(new Error('transaction is not prepared'), { unrecoverable: true, committable: committables[0] });
    if (this.failures > 0) {
      this.failures--;
      throw new Error('connection refused');
    }
    for (const c of committables) this.visible.add(c);
  }
}

const policy = { maxAttempts: 5, initialBackoffMs: 100, maxBackoffMs: 300 };

/** Lets the retrier's promise callbacks run. */
const settle = () => new Promise<void>((r) => setImmediate(r));

function retrier(committer: FlakyCommitter, clock: ManualClock, retries: Array<{ origin: CommitOrigin; attempt: number; delayMs: number }> = []) {
  return new CommitRetrier({ committer, clock, policy, defaultTarget: 'sink', onRetry: (origin, attempt, delayMs) => retries.push({ origin, attempt, delayMs }) });
}

describe('CommitRetrier', () => {
  test('a target down for three commits: retried with doubling backoff up to the bound, then committed', async () => {
    const clock = new ManualClock();
    const committer = new FlakyCommitter(3);
    const retries: Array<{ origin: CommitOrigin; attempt: number; delayMs: number }> = [];
    let done = false;
    const commit = retrier(committer, clock, retries).commit(7, ['tx-7a', 'tx-7b']).then(() => (done = true));
    await settle();
    assert.equal(committer.attempts, 1);
    assert.deepEqual(retries, [{ origin: 7, attempt: 1, delayMs: 100 }]);
    clock.advance(99);
    await settle();
    assert.equal(committer.attempts, 1, 'retried before its backoff');
    clock.advance(1);
    await settle();
    assert.equal(committer.attempts, 2);
    clock.advance(200);
    await settle();
    clock.advance(300);
    await settle();
    await commit;
    assert.equal(done, true);
    assert.equal(committer.attempts, 4);
    assert.deepEqual(retries.map((r) => r.delayMs), [100, 200, 300]);
    assert.deepEqual([...committer.visible].sort(), ['tx-7a', 'tx-7b']);
    assert.equal(clock.pendingTimers, 0);
  });

  test('a target that stays down: after maxAttempts a CommitFailedError naming target, checkpoint and committable', async () => {
    const clock = new ManualClock();
    const committer = new FlakyCommitter(Infinity);
    const failed = retrier(committer, clock).commit(3, ['tx-3']).then(() => undefined, (e: unknown) => e);
    for (let i = 0; i < 10; i++) {
      await settle();
      clock.advance(300);
    }
    const e = await failed;
    assert.ok(e instanceof CommitFailedError, String(e));
    assert.equal(e.code, 'COMMIT_RETRIES_EXHAUSTED');
    assert.equal(e.target, 'fake database db1.orders');
    assert.equal(e.committable, 'tx-3');
    assert.equal(e.checkpointId, 3);
    assert.equal(e.attempts, 5);
    assert.equal(e.unrecoverable, false, 'a restart may find the target back');
    assert.equal(committer.attempts, 5);
    assert.match(e.message, /fake database db1\.orders: committing "tx-3" of checkpoint 3 failed 5 times/);
    assert.match((e.cause as Error).message, /connection refused/);
  });

  test('transiently, then permanently: a refused commit fails at once and is unrecoverable', async () => {
    const clock = new ManualClock();
    const committer = new FlakyCommitter(1);
    const failed = retrier(committer, clock).commit('restored', ['tx-9']).then(() => undefined, (e: unknown) => e);
    await settle();
    committer.refuse = true;
    clock.advance(100);
    const e = await failed;
    assert.ok(e instanceof CommitFailedError);
    assert.equal(e.code, 'COMMIT_REFUSED');
    assert.equal(e.unrecoverable, true);
    assert.equal(e.attempts, 2);
    assert.equal(committer.attempts, 2);
    assert.match(e.message, /of the restored checkpoint was refused/);
  });

  test('close() drops a pending retry: nothing is committed after it', async () => {
    const clock = new ManualClock();
    const committer = new FlakyCommitter(1);
    const r = retrier(committer, clock);
    void r.commit(1, ['tx-1']);
    await settle();
    r.close();
    assert.equal(clock.pendingTimers, 0);
    clock.advance(10_000);
    await settle();
    assert.equal(committer.attempts, 1);
    assert.equal(committer.visible.size, 0);
  });

  test('backoff doubles and is bounded', () => {
    assert.deepEqual([1, 2, 3, 4].map((a) => backoffMs(policy, a)), [100, 200, 300, 300]);
  });
});

describe('CommittableCollector', () => {
  test('committables per checkpoint: state holds every uncommitted one up to the checkpoint, due ones are taken once', async () => {
    const c = new CommittableCollector<string>(2);
    let prepare!: (v: string[]) => void;
    void c.add(1, ['a']);
    void c.add(2, new Promise<string[]>((r) => (prepare = r)));
    void c.add(3, []);
    const state2 = c.stateUpTo(2);
    // Checkpoint 2's pre-commit has not settled: its state waits, and it is not due yet.
    assert.deepEqual(c.takeDue(2), [{ checkpointId: 1, subtask: 2, committables: ['a'] }]);
    assert.deepEqual(c.takeDue(2), [], 'taken twice');
    prepare(['b1', 'b2']);
    assert.deepEqual(await state2, [
      { checkpointId: 1, subtask: 2, committables: ['a'] },
      { checkpointId: 2, subtask: 2, committables: ['b1', 'b2'] },
    ]);
    c.committed(1);
    assert.deepEqual(await c.stateUpTo(1), []);
    assert.deepEqual(c.takeDue(3), [{ checkpointId: 2, subtask: 2, committables: ['b1', 'b2'] }]);
    assert.deepEqual(c.pendingCheckpoints, [2], 'an empty pre-commit is dropped once due');
  });

  test('a failed pre-commit fails the state of every checkpoint that includes it', async () => {
    const c = new CommittableCollector<string>(0);
    void c.add(4, Promise.reject(new Error('PREPARE failed')));
    await assert.rejects(c.stateUpTo(5), /PREPARE failed/);
    assert.deepEqual(await c.stateUpTo(3), []);
    assert.deepEqual(c.takeDue(5), []);
  });
});
