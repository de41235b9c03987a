// Which checkpoint a restart restores from when reading the latest one fails: a corrupted one is
// dropped for the one before (loudly); a store that did not answer drops nothing, the error goes to
// the caller (which waits it out), so no restart begins from an older checkpoint or from nothing and
// commits again what the latest one committed (seen: a timeout while a NATS node was down dropped
// checkpoint 1, and the job started over with duplicates). Nor does a corrupted one when the sinks
// were told to commit its output and a two-phase-commit sink would commit it again (seen: 1.38M
// duplicate lines): that fails with a DuplicatingFallbackError unless allowed, or every such sink
// declares idempotentCommits.
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
import { createLogger, silentLogger } from '../../src/log/logger.ts';
import { DuplicatingFallbackError } from '../../src/coordinator/duplicating-fallback-error.ts';
import type { OperatorSpec } from '../../src/api/transformation.ts';

const metadata = (checkpointId: number): CheckpointMetadata => ({ formatVersion: METADATA_VERSION, jobId: 'j', checkpointId, type: 'checkpoint', unaligned: false, triggeredAt: 0, completedAt: 0, operators: [] });
const completed = (id: number): CompletedCheckpoint => ({ id, type: 'checkpoint', directory: `/cp/chk-${id}`, triggeredAt: 0, completedAt: 0, stateBytes: 0, metadata: metadata(id) });

interface RestorerOptions {
  /** The job's sinks by uid. */
  readonly sinks?: Record<string, object>;
  readonly fallbackPastCommitted?: 'fail' | 'allow';
}

function restorerReading(read: (location: string) => Promise<CheckpointMetadata>, o: RestorerOptions = {}) {
  const discarded: string[] = [];
  const logged: string[] = [];
  const restored: number[] = [];
  const store = new CompletedCheckpointStore(2, { discard: async (d) => void discarded.push(d) }, silentLogger);
  const storage = { readForRestore: async (location: string) => ({ metadata: await read(location), location }) } as unknown as CheckpointStorage;
  const stats = { restored: () => {} } as unknown as CheckpointStatsTracker;
  const operators = Object.entries(o.sinks ?? {}).map(([uid, sink]) => ({ uid, spec: { kind: 'sink', sink } as unknown as OperatorSpec }));
  const graph = { vertices: [{ operators: [{ uid: 'source', spec: { kind: 'source' } }, ...operators] }] } as unknown as JobGraph;
  const log = createLogger({ level: 'error', json: true, write: (line) => logged.push(line) });
  const restorer = new CheckpointRestorer({ graph, storage, store, stats, log, fallbackPastCommitted: o.fallbackPastCommitted ?? 'fail', onRestored: (r) => restored.push(r.checkpointId) });
  return { restorer, store, discarded, logged, restored };
}

const chk2Corrupted = async (location: string) => {
  if (location.endsWith('chk-2')) throw new CheckpointCorruptedError(`${location}/counts-0-0`, 'checksum mismatch');
  return metadata(1);
};
const twoPhase = (extra: object = {}) => ({ createWriter: () => ({}), createCommitter: () => ({}), ...extra });
const plain = { createWriter: () => ({}) };

/** Checkpoints 1 and 2 completed, and the sinks were told to commit both. */
async function bothCommitted(store: CompletedCheckpointStore): Promise<void> {
  for (const id of [1, 2]) {
    await store.add(completed(id));
    store.markCommitNotified(id);
  }
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

test('a corrupted checkpoint whose output a two-phase-commit sink committed: the job fails naming the file, the checkpoint and what would be doubled', async () => {
  const { restorer, store, restored } = restorerReading(chk2Corrupted, { sinks: { files: twoPhase(), upserts: twoPhase({ idempotentCommits: true }), print: plain } });
  await bothCommitted(store);
  const error = await restorer.latest(async () => undefined).then(
    () => assert.fail('restored'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof DuplicatingFallbackError, `got ${String(error)}`);
  assert.equal(error.checkpointId, 2);
  assert.equal(error.file, '/cp/chk-2/counts-0-0');
  assert.equal(error.fallbackCheckpointId, 1);
  assert.deepEqual(error.committedCheckpointIds, [2]);
  assert.deepEqual(error.sinkUids, ['files'], 'only the two-phase-commit sink that does not declare idempotentCommits');
  assert.equal(error.unrecoverable, true);
  assert.ok(error.cause instanceof CheckpointCorruptedError);
  assert.match(error.message, /^checkpoint 2 cannot be restored \(\/cp\/chk-2\/counts-0-0: checksum mismatch\), and falling back to checkpoint 1 .*sink 'files' .*checkpoint 2.*--allow-duplicating-fallback.*execution\.checkpointing\.fallback-past-committed: allow/);
  assert.deepEqual(restored, []);
  assert.deepEqual(store.all().map((c) => c.id), [1, 2], 'nothing is dropped by a restore that did not happen');
});

test('fallback-past-committed allow: the fallback happens, logged as an error that says what is committed twice', async () => {
  const { restorer, store, logged } = restorerReading(chk2Corrupted, { sinks: { files: twoPhase() }, fallbackPastCommitted: 'allow' });
  await bothCommitted(store);
  assert.equal((await restorer.latest(async () => undefined))?.checkpointId, 1);
  const line = logged.map((l) => JSON.parse(l) as { level: string; msg: string }).find((l) => l.msg.includes('checkpoint 2 cannot be restored'));
  assert.equal(line?.level, 'error');
  assert.match(line.msg, /\/cp\/chk-2\/counts-0-0: checksum mismatch.*falling back to checkpoint 1.*sink 'files' committed for checkpoint 2 will be committed twice/);
});

for (const [what, sinks] of [
  ['every two-phase-commit sink declares idempotentCommits', { a: twoPhase({ idempotentCommits: true }), b: twoPhase({ idempotentCommits: true }) }],
  ['no sink commits in two phases', { print: plain }],
] as const) {
  test(`${what}: the fallback happens without being allowed`, async () => {
    const { restorer, store } = restorerReading(chk2Corrupted, { sinks });
    await bothCommitted(store);
    assert.equal((await restorer.latest(async () => undefined))?.checkpointId, 1);
    assert.deepEqual(store.all().map((c) => c.id), [1]);
  });
}

test('a corrupted checkpoint the sinks were never told to commit: the fallback doubles nothing and happens', async () => {
  const { restorer, store } = restorerReading(chk2Corrupted, { sinks: { files: twoPhase() } });
  await store.add(completed(1));
  store.markCommitNotified(1);
  await store.add(completed(2));
  assert.equal((await restorer.latest(async () => undefined))?.checkpointId, 1);
});

test('no older checkpoint retained: the CheckpointCorruptedError, as before', async () => {
  const { restorer, store } = restorerReading(chk2Corrupted, { sinks: { files: twoPhase() } });
  await store.add(completed(2));
  store.markCommitNotified(2);
  await assert.rejects(restorer.latest(async () => undefined), (e) => e instanceof CheckpointCorruptedError && !(e instanceof DuplicatingFallbackError));
});
