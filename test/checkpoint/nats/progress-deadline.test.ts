// The progress deadline of nats-obj:// operations: silence for its duration fails the operation
// with a typed error naming what and where; each touch moves it; an operation that ends first wins.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ObjectStoreTimeoutError, ProgressDeadline } from '../../../src/checkpoint/nats/progress-deadline.ts';

const error = () => new ObjectStoreTimeoutError('download', 'weir-cp', 'chk-2/_metadata', 40);

test('an operation without progress fails by the deadline, naming the operation, bucket, object and key', async () => {
  const deadline = new ProgressDeadline(40, error);
  const never = new Promise<never>(() => {});
  await assert.rejects(deadline.race(never), (e: Error) => {
    assert.ok(e instanceof ObjectStoreTimeoutError);
    assert.match(e.message, /^download 'chk-2\/_metadata' in NATS object store 'weir-cp' made no progress for 40 ms \(state.checkpoints.nats.timeout\)$/);
    return true;
  });
});

test('each chunk taken moves the deadline: a slow stream that keeps progressing is not cut off', async () => {
  const deadline = new ProgressDeadline(60, error);
  async function* slow() {
    // Five chunks 30 ms apart: 150 ms in all, more than twice the deadline, never 60 ms silent.
    for (let i = 0; i < 5; i++) {
      await new Promise((r) => setTimeout(r, 30));
      yield new Uint8Array([i]);
    }
  }
  const read = (async () => {
    const got: number[] = [];
    for await (const c of slow()) {
      deadline.touch();
      got.push(c[0]!);
    }
    return got;
  })();
  assert.deepEqual(await deadline.race(read), [0, 1, 2, 3, 4]);
});

test('an operation that ends first resolves, and the deadline no longer fires', async () => {
  const deadline = new ProgressDeadline(30, error);
  assert.equal(await deadline.race(Promise.resolve('done')), 'done');
  // Twice its duration later the deadline has not fired: `expired` is still pending.
  const state = await Promise.race([deadline.expired.then(() => 'resolved', () => 'fired'), new Promise((r) => setTimeout(() => r('pending'), 60))]);
  assert.equal(state, 'pending');
});
