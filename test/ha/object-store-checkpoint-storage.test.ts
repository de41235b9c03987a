// Checkpoint storage on the JetStream object store (`nats-obj://<bucket>/<prefix>`), on a private
// 3-node cluster: the worker and coordinator views round trip state files, channel state and
// _metadata; what is missing or belongs to another cluster is named; disposal removes objects; and
// a job with injected failures restores from it with exactly-once output.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import { Objm } from '@nats-io/obj';
import { buildConfig, type WeirConfig } from '../../src/config/configuration.ts';
import { createJobMaster, createLogger, executeJob } from '../../src/index.ts';
import { createCheckpointStorage, createCheckpointStorageWorkerView } from '../../src/checkpoint/create-checkpoint-storage.ts';
import { CheckpointCorruptedError } from '../../src/checkpoint/checkpoint-storage-error.ts';
import { channelStateKey } from '../../src/checkpoint/channel-state-key.ts';
import { METADATA_VERSION, type CheckpointMetadata } from '../../src/checkpoint/checkpoint-metadata.ts';
import { withReadableSnapshot } from '../../src/checkpoint/readable-snapshot.ts';
import { readSnapshot } from '../../src/checkpoint/snapshot-reader.ts';
import { BucketLayoutError } from '../../src/ha/bucket-layout-error.ts';
import { diffSortedLines, expectedRunningCounts, JobEvents, makeTempDir, readCommittedLines, removeDir, writeWordsFile } from '../fixtures/recovery-helpers.ts';
import { startNatsCluster, type NatsCluster } from '../fixtures/nats-cluster.ts';
import { weir } from '../fixtures/weir-process.ts';

const JOB = join(import.meta.dirname, '..', 'fixtures', 'jobs', 'wordcount-throttled.ts');

describe('checkpoint storage on the NATS object store', { timeout: 180_000 }, () => {
  let cluster: NatsCluster;
  let root: string;
  before(async () => {
    cluster = await startNatsCluster();
    root = makeTempDir('nats-obj-storage');
  });
  after(async () => {
    await cluster?.stop();
    removeDir(root);
  });

  const configFor = (dir: string, extra: Record<string, unknown> = {}): WeirConfig =>
    buildConfig({ 'execution.checkpointing.dir': dir, 'high-availability.nats.servers': cluster.servers, ...extra });

  async function objectNames(bucket: string): Promise<string[]> {
    const nc = await connect({ servers: cluster.servers.split(',') });
    try {
      return (await (await new Objm(nc).open(bucket)).list()).map((o) => o.name).sort();
    } finally {
      await nc.close();
    }
  }

  test('state, channel state and _metadata round trip; a missing _metadata is named by its object; discard removes the objects', async () => {
    const jobId = '1'.repeat(32);
    const config = configFor('nats-obj://ckpt-unit/base');
    const storage = createCheckpointStorage(jobId, config);
    const worker = createCheckpointStorageWorkerView(config);
    try {
      await storage.initialize(true);
      assert.equal(storage.jobLocation, `nats-obj://ckpt-unit/base/${jobId}`);
      const location = storage.checkpointLocation(7);
      assert.equal(location, `nats-obj://ckpt-unit/base/${jobId}/chk-7`);
      const records = Array.from({ length: 5000 }, (_, i) => ({ word: `w${i}`, count: i }));
      const handles = await worker.writeChannelState({ checkpointId: 7, location }, { vertexId: 'v', subtask: 0, headUid: 'sum' }, { inputs: [[channelStateKey(3, 0), records]], outputs: [[channelStateKey(4, 1), ['x', 'y']]] });
      assert.equal(handles.inputChannels['3:0']?.file, 'sum-0-1', 'handles name files relative to the checkpoint');
      const metadata: CheckpointMetadata = {
        formatVersion: METADATA_VERSION,
        jobId,
        checkpointId: 7,
        type: 'checkpoint',
        unaligned: true,
        triggeredAt: 1,
        completedAt: 2,
        operators: [{ uid: 'sum', operatorId: 'op', name: 'Sum', vertexId: 'v', parallelism: 1, maxParallelism: 128, subtasks: [{ subtask: 0, keyed: null, operator: {}, inputChannels: handles.inputChannels, outputChannels: handles.outputChannels }] }],
      };
      await storage.writeMetadata(location, metadata);
      assert.deepEqual(await objectNames('ckpt-unit'), ['_weir/layout', `base/${jobId}/chk-7/_metadata`, `base/${jobId}/chk-7/sum-0-1`]);

      const read = await storage.readForRestore(`${location}/_metadata`);
      assert.equal(read.location, location);
      assert.equal(read.metadata.checkpointId, 7);
      const staged = await worker.stageRestore!({ checkpointId: 7, directory: location, operators: {}, channels: { rescaled: false, inputs: [{ key: channelStateKey(3, 0), handle: handles.inputChannels['3:0']! }], outputs: [{ key: channelStateKey(4, 1), handle: handles.outputChannels['4:1']! }] } });
      assert.deepEqual(worker.readChannelState(handles.inputChannels['3:0']!, staged.location), records);
      assert.deepEqual(worker.readChannelState(handles.outputChannels['4:1']!, staged.location), ['x', 'y']);
      await staged.discard();

      await assert.rejects(storage.readForRestore(storage.checkpointLocation(8)), (e: unknown) => e instanceof CheckpointCorruptedError && e.file === `nats-obj://ckpt-unit/base/${jobId}/chk-8/_metadata` && /no _metadata here/.test(e.message));
      await storage.discard(location);
      assert.deepEqual(await objectNames('ckpt-unit'), ['_weir/layout']);
    } finally {
      await storage.close?.();
      await worker.close?.();
    }
  });

  test('a checkpoint bucket of another cluster id is refused for writing, and still readable for a restore', async () => {
    const mine = createCheckpointStorage('2'.repeat(32), configFor('nats-obj://ckpt-owned/x', { 'high-availability.cluster-id': 'alpha' }));
    await mine.initialize(true);
    await mine.close?.();
    const theirs = createCheckpointStorage('3'.repeat(32), configFor('nats-obj://ckpt-owned/x', { 'high-availability.cluster-id': 'beta' }));
    await assert.rejects(theirs.initialize(true), (e: unknown) => {
      assert.match(String(e), /execution\.checkpointing\.dir nats-obj:\/\/ckpt-owned\/x: NATS bucket 'ckpt-owned' refused: it belongs to cluster 'alpha', this is cluster 'beta'/);
      assert.ok((e as Error).cause instanceof BucketLayoutError);
      return true;
    });
    // Reading (a savepoint taken by another cluster) is allowed: only what is asked for must be there.
    await assert.rejects(theirs.readForRestore('nats-obj://ckpt-owned/x/none'), CheckpointCorruptedError);
    await theirs.close?.();
  });

  test('a job with injected failures restores from the object store; the committed output is exactly-once; retained N; inspect reads it', async () => {
    const dir = join(root, 'job');
    mkdirSync(dir, { recursive: true });
    const input = join(dir, 'words.txt');
    const generated = writeWordsFile(input, { seed: 20261201, bytes: 60_000 });
    const output = join(dir, 'out');
    const events = new JobEvents();
    const checkpointDir = 'nats-obj://ckpt-job/runs';
    const result = await executeJob({
      job: JOB,
      args: ['--input', input, '--output', output, '--checkpoint-interval', '150', '--lines-per-second', '6000'],
      config: {
        'parallelism.default': 2,
        'execution.checkpointing.dir': checkpointDir,
        'execution.checkpointing.num-retained': 2,
        'high-availability.nats.servers': cluster.servers,
        'restart-strategy.type': 'fixed-delay',
        'restart-strategy.fixed-delay.attempts': 10,
        'restart-strategy.fixed-delay.delay': '50 ms',
      },
      taskManagers: 2,
      faults: { failures: 2, seed: 5, minRecords: 1500, maxRecords: 4000 },
      listener: events.listener,
      log: createLogger({ level: 'error' }),
      retainCheckpointsOnFinish: true,
    });
    assert.equal(result.status, 'FINISHED', result.error?.message);
    assert.equal(result.injectedFailures, 2);
    assert.ok(events.restored.some((r) => r.path.startsWith(`${checkpointDir}/`)), `a restart restored a checkpoint from the object store: ${events.describe()}`);
    assert.ok(events.completed.length >= 3, events.describe());
    const diff = diffSortedLines(readCommittedLines(output), expectedRunningCounts(generated.counts));
    assert.equal(diff, undefined, `committed output is not exactly-once: ${diff}`);

    const names = await objectNames('ckpt-job');
    const retained = new Set(names.filter((n) => n.endsWith('/_metadata')).map((n) => n.split('/').at(-2)));
    assert.equal(retained.size, 2, `num-retained 2: ${[...retained].join(', ')}`);
    assert.ok(names.every((n) => n === '_weir/layout' || retained.has(n.split('/').at(-2)!)), `subsumed and aborted checkpoints leave no objects: ${names.join(', ')}; ${events.describe()}`);

    const config = configFor(checkpointDir);
    await withReadableSnapshot(result.latestCheckpoint!, config, async (local) => {
      const snap = await readSnapshot(local);
      const sum = snap.operators.find((o) => o.uid === 'counts')!;
      const counts = new Map<string, number>();
      for (const s of sum.keyed) for (const entries of s.entries.values()) for (const [k, v] of entries) counts.set(String(k), (v as { count: number }).count);
      assert.equal(counts.size, generated.counts.size);
      for (const [w, n] of generated.counts) assert.equal(counts.get(w), n, w);
    });
    // The command reads it too.
    const cli = await weir(['inspect', result.latestCheckpoint!, '-D', `high-availability.nats.servers=${cluster.servers}`, '--json']);
    assert.equal(cli.code, 0, cli.stderr);
    const listing = JSON.parse(cli.stdout) as { operators: Array<{ uid: string; keyedStates: Array<{ entries: number }> }> };
    assert.equal(listing.operators.find((o) => o.uid === 'counts')?.keyedStates[0]?.entries, generated.counts.size);
  });

  test('savepoints move between the two: to the object store from a job on a directory, and back; the output stays exactly-once', async () => {
    const dir = join(root, 'relocate');
    mkdirSync(dir, { recursive: true });
    const input = join(dir, 'words.txt');
    const generated = writeWordsFile(input, { seed: 20261202, bytes: 40_000 });
    const output = join(dir, 'out');
    const args = ['--input', input, '--output', output, '--checkpoint-interval', '150', '--lines-per-second', '1500'];
    const base = { 'parallelism.default': 2, 'high-availability.nats.servers': cluster.servers };
    const log = createLogger({ level: 'error' });

    async function runUntilSavepoint(config: Record<string, unknown>, target: string, restoreFrom?: string): Promise<string> {
      const events = new JobEvents();
      const master = await createJobMaster({ job: JOB, args, config: { ...base, ...config }, listener: events.listener, log, ...(restoreFrom ? { restoreFrom } : {}) });
      const run = master.run();
      await events.waitFor('a checkpoint', () => events.completed[0], 30_000);
      const savepoint = await master.stopWithSavepoint(target);
      assert.equal((await run).status, 'FINISHED');
      if (restoreFrom) assert.deepEqual(events.restored.map((r) => r.path), [restoreFrom]);
      return savepoint.directory;
    }
    // Checkpoints in a directory, savepoint to the object store.
    const toObjects = await runUntilSavepoint({ 'execution.checkpointing.dir': join(dir, 'ckpt-a') }, 'nats-obj://savepoints/moved');
    assert.match(toObjects, /^nats-obj:\/\/savepoints\/moved\/sp-[0-9a-f]{6}-[0-9a-f]{12}$/);
    // Checkpoints on the object store, restored from there, savepoint to a directory.
    const toDirectory = await runUntilSavepoint({ 'execution.checkpointing.dir': 'nats-obj://ckpt-b/x' }, join(dir, 'savepoints'), toObjects);
    assert.ok(toDirectory.startsWith(join(dir, 'savepoints')), toDirectory);
    // Checkpoints on the object store, restored from the directory, to the end of the input.
    const events = new JobEvents();
    const last = await executeJob({ job: JOB, args, config: { ...base, 'execution.checkpointing.dir': 'nats-obj://ckpt-b/y' }, restoreFrom: toDirectory, listener: events.listener, log });
    assert.equal(last.status, 'FINISHED', last.error?.message);
    assert.deepEqual(events.restored.map((r) => r.path), [toDirectory]);
    const diff = diffSortedLines(readCommittedLines(output), expectedRunningCounts(generated.counts));
    assert.equal(diff, undefined, `committed output is not exactly-once: ${diff}`);
  });
});
