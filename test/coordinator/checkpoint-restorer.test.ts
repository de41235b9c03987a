// Which checkpoint a restart restores from when reading the latest one fails: a corrupted one is
// dropped for the one before (loudly); a store that did not answer drops nothing, the error goes to
// the caller (which waits it out), so no restart begins from an older checkpoint or from nothing and
// commits again what the latest one committed (seen: a timeout while a NATS node was down dropped
// checkpoint 1, and the job started over with duplicates).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CheckpointRestorer } from '../../src/coordinator/checkpoint-restorer.ts';
import { CompletedCheckpointStore } from '../../src/coordinator/completed-checkpoint-store.ts';
import type { CompletedCheckpoint } from '../../src/coordinator/completed-checkpoint.ts';
import { CheckpointCorruptedError } from '../../src/checkpoint/checkpoint-storage-error.ts';
import { METADATA_VERSION, type CheckpointMetadata } from '../../src/checkpoint/checkpoint-metadata.ts';
import type { CheckpointStorage } from '../../src/checkpoint/checkpoint-storage.ts';
import type { CheckpointStatsTracker } from '../../src/coordinator/checkpoint-stats.ts';
import type { JobGraph } from '../../src/graph/job-graph.ts';
import { silentLogger } from '../../src/log/logger.ts';

const metadata = (checkpointId: number): CheckpointMetadata => ({ formatVersion: METADATA_VERSION, jobId: 'j', checkpointId, type: 'checkpoint', unaligned: false, triggeredAt: 0, completedAt: 0, operators: [] });
const completed = (id: number): CompletedCheckpoint => ({ id, type: 'checkpoint', directory: `/cp/chk-${id}`, triggeredAt: 0, completedAt: 0, stateBytes: 0, metadata: metadata(id) });

function restorerReading(read: (location: string) => Promise<CheckpointMetadata>) {
  const disposed: string[] = [];
  const store = new CompletedCheckpointStore(2, { dispose: async (d) => void disposed.push(d) }, silentLogger);
  const storage = { readForRestore: async (location: string) => ({ metadata: await read(location), location }) } as unknown as CheckpointStorage;
  const stats = { restored: () => {} } as unknown as CheckpointStatsTracker;
  const graph = { vertices: [] } as unknown as JobGraph;
  const restorer = new CheckpointRestorer({ graph, storage, store, stats, log: silentLogger, onRestored: () => {} });
  return { restorer, store, disposed };
}

test('a store that does not answer: the error goes to the caller and every checkpoint stays', async () => {
  const timeout = Object.assign(new Error('timeout'), { name: 'TimeoutError' });
  const { restorer, store } = restorerReading(async () => {
    throw timeout;
  });
  await store.add(completed(1));
  await store.add(completed(2));
  await assert.rejects(restorer.latest(async () => undefined), (e) => e === timeout);
  assert.deepEqual(store.all().map((c) => c.id), [1, 2]);
});

test('a corrupted latest checkpoint is dropped for the one before', async () => {
  const { restorer, store } = restorerReading(async (location) => {
    if (location.endsWith('chk-2')) throw new CheckpointCorruptedError(`${location}/_metadata`, 'checksum mismatch');
    return metadata(1);
  });
  await store.add(completed(1));
  await store.add(completed(2));
  const restore = await restorer.latest(async () => undefined);
  assert.equal(restore?.checkpointId, 1);
  assert.deepEqual(store.all().map((c) => c.id), [1]);
});
