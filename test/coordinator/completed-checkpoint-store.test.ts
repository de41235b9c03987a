// The retained completed checkpoints on a fake storage: beyond `retained` the oldest is deleted,
// one older than the latest is deleted at once, and a deletion that fails is logged, not thrown.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { METADATA_VERSION } from '../../src/checkpoint/checkpoint-metadata.ts';
import { CompletedCheckpointStore } from '../../src/coordinator/completed-checkpoint-store.ts';
import type { CompletedCheckpoint } from '../../src/coordinator/completed-checkpoint.ts';
import { FakeCheckpointStorage, recordingLogger } from '../fixtures/fake-checkpoint-storage.ts';

function checkpoint(id: number): CompletedCheckpoint {
  return {
    id,
    type: 'checkpoint',
    directory: `/fake/job/chk-${id}`,
    triggeredAt: id * 1000,
    completedAt: id * 1000 + 10,
    stateBytes: 0,
    metadata: { formatVersion: METADATA_VERSION, jobId: 'job', checkpointId: id, type: 'checkpoint', unaligned: false, triggeredAt: id * 1000, completedAt: id * 1000 + 10, operators: [] },
  };
}

function store(retained: number) {
  const storage = new FakeCheckpointStorage();
  const log = recordingLogger();
  return { s: new CompletedCheckpointStore(retained, storage, log), storage, log };
}

const ids = (s: CompletedCheckpointStore) => s.all().map((c) => c.id);

test('adding beyond the retained count deletes the oldest, one at a time', async () => {
  const { s, storage } = store(2);
  assert.equal(s.latest(), undefined);
  assert.equal(await s.add(checkpoint(1)), true);
  assert.equal(await s.add(checkpoint(2)), true);
  assert.deepEqual(ids(s), [1, 2]);
  assert.deepEqual(storage.discarded, [], 'nothing deleted while within the count');
  assert.equal(await s.add(checkpoint(3)), true);
  assert.deepEqual(ids(s), [2, 3]);
  assert.deepEqual(storage.discarded, ['/fake/job/chk-1']);
  assert.equal(await s.add(checkpoint(5)), true);
  assert.deepEqual(ids(s), [3, 5]);
  assert.deepEqual(storage.discarded, ['/fake/job/chk-1', '/fake/job/chk-2']);
  assert.equal(s.latest()?.id, 5);
});

test('retaining one keeps only the latest', async () => {
  const { s, storage } = store(1);
  for (const id of [1, 2, 3]) await s.add(checkpoint(id));
  assert.deepEqual(ids(s), [3]);
  assert.deepEqual(storage.discarded, ['/fake/job/chk-1', '/fake/job/chk-2']);
});

test('a checkpoint older than the latest is deleted at once and not added', async () => {
  const { s, storage } = store(3);
  await s.add(checkpoint(1));
  await s.add(checkpoint(4));
  assert.equal(await s.add(checkpoint(3)), false);
  assert.deepEqual(ids(s), [1, 4], 'the retained ones are untouched');
  assert.deepEqual(storage.discarded, ['/fake/job/chk-3']);
  assert.equal(s.latest()?.id, 4);
});

test('remove(id) drops a checkpoint without deleting its files', async () => {
  const { s, storage } = store(3);
  for (const id of [1, 2, 3]) await s.add(checkpoint(id));
  s.remove(3);
  assert.deepEqual(ids(s), [1, 2]);
  assert.equal(s.latest()?.id, 2, 'the one before becomes the latest');
  s.remove(42);
  assert.deepEqual(ids(s), [1, 2], 'an unknown id changes nothing');
  assert.deepEqual(storage.discarded, []);
});

test('discardAll deletes every retained checkpoint and empties the store', async () => {
  const { s, storage } = store(3);
  for (const id of [1, 2, 3]) await s.add(checkpoint(id));
  await s.discardAll('job finished');
  assert.deepEqual(ids(s), []);
  assert.equal(s.latest(), undefined);
  assert.deepEqual(storage.discarded, ['/fake/job/chk-1', '/fake/job/chk-2', '/fake/job/chk-3']);
});

test('a deletion that fails is logged with the checkpoint and its path, not thrown, and the rest go on', async () => {
  const { s, storage, log } = store(1);
  storage.failDiscard.add('/fake/job/chk-1');
  await s.add(checkpoint(1));
  assert.equal(await s.add(checkpoint(2)), true, 'adding does not fail');
  assert.deepEqual(ids(s), [2], 'the subsumed one is gone from the store even so');
  const warnings = log.lines.filter((l) => l.level === 'warn');
  assert.equal(warnings.length, 1);
  assert.equal(warnings[0]!.fields.checkpointId, 1);
  assert.equal(warnings[0]!.fields.path, '/fake/job/chk-1');
  assert.equal(warnings[0]!.fields.error, 'cannot delete /fake/job/chk-1');

  storage.failDiscard.add('/fake/job/chk-2');
  await s.add(checkpoint(3));
  await s.add(checkpoint(4));
  await s.discardAll('job canceled');
  assert.deepEqual(storage.discarded, ['/fake/job/chk-1', '/fake/job/chk-2', '/fake/job/chk-3', '/fake/job/chk-4']);
  assert.deepEqual(
    log.lines.filter((l) => l.level === 'warn').map((l) => l.fields.checkpointId),
    [1, 2],
  );
});

// A restore asks which retained checkpoints the sinks were told to commit (a fallback past one
// would commit its output again): only retained ones are remembered, and only while retained.
test('which retained checkpoints the sinks were told to commit', async () => {
  const { s } = store(2);
  await s.add(checkpoint(1));
  await s.add(checkpoint(2));
  s.markCommitNotified(2);
  s.markCommitNotified(7);
  assert.deepEqual([1, 2, 7].map((id) => s.wasCommitNotified(id)), [false, true, false], 'a checkpoint not retained is not remembered');
  s.remove(2);
  assert.equal(s.wasCommitNotified(2), false);
  await s.add(checkpoint(3));
  s.markCommitNotified(3);
  await s.add(checkpoint(4));
  await s.add(checkpoint(5));
  assert.deepEqual(ids(s), [4, 5]);
  assert.equal(s.wasCommitNotified(3), false, 'a subsumed checkpoint is forgotten');
  s.markCommitNotified(5);
  await s.discardAll('the job ended');
  assert.equal(s.wasCommitNotified(5), false);
});
