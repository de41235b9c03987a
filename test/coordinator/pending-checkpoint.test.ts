// One checkpoint in flight: each expected subtask acknowledges once; a second acknowledgement,
// one from a subtask nobody waits for and any after the checkpoint was discarded are told apart.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { TaskStateSnapshot } from '../../src/checkpoint/state-handles.ts';
import { CheckpointStatsTracker } from '../../src/coordinator/checkpoint-stats.ts';
import { PendingCheckpoint } from '../../src/coordinator/pending-checkpoint.ts';
import { taskKey, type TaskKey } from '../../src/ids/task-key.ts';
import type { TaskFigures } from '../../src/rpc/job-master-gateway.ts';
import { ManualClock } from '../fixtures/manual-clock.ts';

const figures: TaskFigures = { syncMs: 1, asyncMs: 2, alignmentMs: 0, startDelayMs: 0, processedBytes: 0, persistedBytes: 0, stateBytes: 10, unaligned: false };
const state = (tag: string): TaskStateSnapshot => ({ operators: [{ operatorId: tag, uid: tag, keyed: null, operator: {} }], inputChannels: {}, outputChannels: {} });

const [a0, a1, b0, c0, zz9] = [taskKey('a', 0), taskKey('a', 1), taskKey('b', 0), taskKey('c', 0), taskKey('zz', 9)];

function pending(expected: TaskKey[]): PendingCheckpoint {
  const stats = new CheckpointStatsTracker().triggered(7, false, 1000, expected.length);
  return new PendingCheckpoint(7, 1000, { type: 'checkpoint', unaligned: false, alignedTimeout: 0, targetDir: '/fake/chk-7' }, expected, stats);
}

test('each expected subtask acknowledges once: SUCCESS, then fully acknowledged', () => {
  const p = pending([a0, a1, b0]);
  assert.equal(p.isFullyAcknowledged, false);
  assert.deepEqual([...p.notYetAcknowledged].sort(), ['a:0', 'a:1', 'b:0']);
  assert.equal(p.acknowledge(a1, state('a1'), figures), 'SUCCESS');
  assert.deepEqual([...p.notYetAcknowledged].sort(), ['a:0', 'b:0']);
  assert.equal(p.isFullyAcknowledged, false);
  assert.equal(p.acknowledge(b0, state('b0'), figures), 'SUCCESS');
  assert.deepEqual(p.notYetAcknowledged, ['a:0']);
  assert.equal(p.acknowledge(a0, state('a0'), figures), 'SUCCESS');
  assert.equal(p.isFullyAcknowledged, true);
  assert.deepEqual(p.notYetAcknowledged, []);
  assert.deepEqual([...p.acks.keys()].sort(), ['a:0', 'a:1', 'b:0']);
  assert.equal(p.acks.get(a1)!.state.operators[0]!.uid, 'a1', 'each acknowledgement keeps its own state');
  assert.equal(p.acks.get(b0)!.figures, figures);
});

test('a second acknowledgement of a subtask is DUPLICATE and changes nothing', () => {
  const p = pending([a0, a1]);
  assert.equal(p.acknowledge(a0, state('first'), figures), 'SUCCESS');
  assert.equal(p.acknowledge(a0, state('second'), figures), 'DUPLICATE');
  assert.equal(p.acks.get(a0)!.state.operators[0]!.uid, 'first', 'the first state stays');
  assert.deepEqual(p.notYetAcknowledged, ['a:1']);
  assert.equal(p.isFullyAcknowledged, false);
});

test('an acknowledgement from a subtask that is not expected is UNKNOWN and changes nothing', () => {
  const p = pending([a0]);
  assert.equal(p.acknowledge(a1, state('x'), figures), 'UNKNOWN');
  assert.equal(p.acknowledge(c0, state('x'), figures), 'UNKNOWN');
  assert.equal(p.acks.size, 0);
  assert.deepEqual(p.notYetAcknowledged, ['a:0']);
  assert.equal(p.isFullyAcknowledged, false);
});

test('after discard every acknowledgement is DISCARDED, even a duplicate or an unknown one, and its timer is cancelled', () => {
  const clock = new ManualClock();
  const p = pending([a0, a1]);
  let expired = false;
  p.timer = clock.schedule(() => (expired = true), 100);
  assert.equal(p.acknowledge(a0, state('a0'), figures), 'SUCCESS');
  assert.equal(p.isDiscarded, false);
  p.discard();
  assert.equal(p.isDiscarded, true);
  assert.equal(p.acknowledge(a1, state('a1'), figures), 'DISCARDED');
  assert.equal(p.acknowledge(a0, state('a0'), figures), 'DISCARDED');
  assert.equal(p.acknowledge(zz9, state('z'), figures), 'DISCARDED');
  assert.deepEqual(p.notYetAcknowledged, ['a:1']);
  assert.equal(p.isFullyAcknowledged, false);
  clock.advance(1000);
  assert.equal(expired, false, 'the expiry timer does not fire');
  assert.equal(clock.pendingTimers, 0);
});

test('a checkpoint with nothing to wait for is fully acknowledged at once', () => {
  const p = pending([]);
  assert.equal(p.isFullyAcknowledged, true);
  assert.equal(p.acknowledge(a0, state('a0'), figures), 'UNKNOWN');
});
