// A TaskManager's fence against deposed leaders, without processes: fake connections and slots.
// Messages of epochs older than the newest seen are refused (a commit above all), slots of older
// epochs are cancelled and their connections left the moment a newer epoch is seen through leader
// retrieval or a message, whatever the old leader does; equal epochs are accepted, and without
// high availability (no epoch anywhere) everything is accepted and nothing cancelled.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LeaderEpochFence } from '../../src/cluster/leader-epoch-fence.ts';
import { StaleLeaderEpochError } from '../../src/cluster/stale-leader-epoch-error.ts';
import type { TaskManagerMessage } from '../../src/rpc/control-protocol.ts';

interface FakeConnection {
  readonly address: string;
}

function fenceWithLog() {
  const cancelled: Array<[string, number, number]> = [];
  const left: Array<[string, number, number]> = [];
  const fence = new LeaderEpochFence<FakeConnection, string>({
    cancel: (slot, epoch, newest) => cancelled.push([slot, epoch, newest]),
    leave: (c, epoch, newest) => left.push([c.address, epoch, newest]),
  });
  return { fence, cancelled, left };
}

const commit = (leaderEpoch: number): TaskManagerMessage => ({ type: 'toSlot', allocation: 'a1', message: { type: 'notifyCheckpointComplete', attempt: 0, checkpointId: 7 }, leaderEpoch });
const heartbeat = (leaderEpoch: number): TaskManagerMessage => ({ type: 'heartbeatRequest', seq: 1, leaderEpoch });
const startSlot = (leaderEpoch: number): TaskManagerMessage => ({ type: 'startSlot', allocation: 'a2', slot: 0, init: {} as never, leaderEpoch });

test('a newer epoch through leader retrieval: the old leader\'s slots are cancelled, its connection left, its commit refused', () => {
  const { fence, cancelled, left } = fenceWithLog();
  const old: FakeConnection = { address: 'old-jm:1' };
  fence.connected(old, 1);
  assert.deepEqual(fence.admit(old, startSlot(1)), { kind: 'accepted', epoch: 1 });
  assert.equal(fence.slotStarted('slot-0', 1), true);

  // The old leader is paused and says nothing: the retrieval alone fences it off.
  fence.observe(2);
  assert.equal(fence.newest, 2);
  assert.deepEqual(cancelled, [['slot-0', 1, 2]]);
  assert.deepEqual(left, [['old-jm:1', 1, 2]]);

  // Resumed, it goes on sending over the connection if it is still open: nothing is acted on.
  for (const m of [commit(1), heartbeat(1), startSlot(1)]) {
    const v = fence.admit(old, m);
    assert.equal(v.kind, 'refused');
    assert.ok(v.kind === 'refused' && v.error instanceof StaleLeaderEpochError);
    assert.equal(v.error.epoch, 1);
    assert.equal(v.error.newestEpoch, 2);
    assert.equal(v.error.jobManager, 'old-jm:1');
  }
  const v = fence.admit(old, commit(1));
  assert.ok(v.kind === 'refused');
  assert.equal(v.error.messageType, 'toSlot/notifyCheckpointComplete');
  assert.match(v.error.message, /refused toSlot\/notifyCheckpointComplete of leader epoch 1 from the JobManager at old-jm:1: leader epoch 2/);
  // Unstamped messages of that connection count as its epoch.
  assert.equal(fence.admit(old, heartbeat(0)).kind, 'refused');
  // Cancelled once: a later epoch has nothing left of epoch 1 to cancel.
  fence.observe(3);
  assert.deepEqual(cancelled, [['slot-0', 1, 2]]);
});

test('a newer epoch in a message: slots of older epochs are cancelled, though the old connection is still open and silent', () => {
  const { fence, cancelled, left } = fenceWithLog();
  const old: FakeConnection = { address: 'old-jm:1' };
  const fresh: FakeConnection = { address: 'new-jm:1' };
  fence.connected(old, 4);
  fence.slotStarted('slot-0', 4);
  fence.slotStarted('slot-1', 4);
  // The TaskManager's retrieval is behind; the new leader's `registered` reply says epoch 5.
  fence.connected(fresh, undefined);
  assert.deepEqual(fence.admit(fresh, { type: 'registered', jobManager: 'jobmanager', leaderEpoch: 5 }), { kind: 'accepted', epoch: 5 });
  assert.deepEqual(cancelled.map((c) => c[0]).sort(), ['slot-0', 'slot-1']);
  assert.deepEqual(left, [['old-jm:1', 4, 5]]);
  assert.equal(fence.epochOf(fresh), 5);
  assert.equal(fence.admit(old, commit(4)).kind, 'refused');
  // Retrieval catching up with the same epoch changes nothing.
  fence.observe(5);
  assert.equal(cancelled.length, 2);
  assert.equal(left.length, 1);
});

test('equal and newer epochs are accepted; a leader re-elected on the same connection keeps it', () => {
  const { fence, cancelled, left } = fenceWithLog();
  const jm: FakeConnection = { address: 'jm:1' };
  fence.connected(jm, 3);
  fence.observe(3);
  assert.deepEqual(fence.admit(jm, commit(3)), { kind: 'accepted', epoch: 3 });
  fence.slotStarted('slot-0', 3);
  // The same JobManager leads again with epoch 4: its slot of epoch 3 goes, its connection stays.
  assert.deepEqual(fence.admit(jm, heartbeat(4)), { kind: 'accepted', epoch: 4 });
  assert.deepEqual(cancelled, [['slot-0', 3, 4]]);
  assert.deepEqual(left, []);
  assert.equal(fence.epochOf(jm), 4);
  assert.equal(fence.admit(jm, commit(3)).kind, 'refused');
  assert.equal(fence.admit(jm, heartbeat(0)).kind, 'accepted');
});

test('a slot whose start-slot was accepted is not started once its epoch was superseded meanwhile (its bundle was being fetched)', () => {
  const { fence, cancelled } = fenceWithLog();
  const jm: FakeConnection = { address: 'jm:1' };
  fence.connected(jm, 1);
  const v = fence.admit(jm, startSlot(1));
  assert.ok(v.kind === 'accepted');
  fence.observe(2);
  assert.equal(fence.slotStarted('slot-0', v.epoch), false);
  assert.deepEqual(cancelled, []);
});

test('an ended slot is not cancelled again; a closed connection is not left', () => {
  const { fence, cancelled, left } = fenceWithLog();
  const jm: FakeConnection = { address: 'jm:1' };
  fence.connected(jm, 1);
  fence.slotStarted('slot-0', 1);
  fence.slotEnded('slot-0');
  fence.disconnected(jm);
  fence.observe(2);
  assert.deepEqual(cancelled, []);
  assert.deepEqual(left, []);
});

test('without high availability (no epoch anywhere) every message is accepted and nothing is cancelled', () => {
  const { fence, cancelled, left } = fenceWithLog();
  const jm: FakeConnection = { address: 'jm:1' };
  fence.connected(jm, undefined);
  for (const m of [startSlot(0), commit(0), heartbeat(0)]) assert.deepEqual(fence.admit(jm, m), { kind: 'accepted', epoch: undefined });
  assert.equal(fence.slotStarted('slot-0', undefined), true);
  assert.equal(fence.newest, 0);
  assert.deepEqual(cancelled, []);
  assert.deepEqual(left, []);
});
