// Retention with shared files, step by step: the real CheckpointCoordinator and completed-checkpoint
// store on the real checkpoint storage (a directory, and a JetStream object store on a private
// 3-node NATS cluster), one keyed subtask on the lmdb backend whose snapshots the worker view
// writes as a TaskManager would, 50 completed incremental checkpoints with num-retained 3 (every
// seventh trigger declined after the keyed subtask wrote its delta, so aborted ones are in the
// mix too). Afterwards the only shared files left are those the 3 retained checkpoints' _metadata
// name, and the latest restores to exactly the state the workload built.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import { Objm } from '@nats-io/obj';
import { ValueStateDescriptor, Types } from '../../../src/index.ts';
import { buildConfig, type WeirConfig } from '../../../src/config/configuration.ts';
import type { CheckpointMetadata } from '../../../src/checkpoint/checkpoint-metadata.ts';
import { createCheckpointStorage, createCheckpointStorageWorkerView } from '../../../src/checkpoint/create-checkpoint-storage.ts';
import { sharedFileBaseName, sharedStateFiles } from '../../../src/checkpoint/incremental/shared-state-files.ts';
import type { KeyedStateHandle, TaskStateSnapshot } from '../../../src/checkpoint/state-handles.ts';
import { keyedBytes, keyedBytesWritten } from '../../../src/checkpoint/incremental/keyed-state-size.ts';
import { CheckpointCoordinator } from '../../../src/coordinator/checkpoint-coordinator.ts';
import { seededRandom } from '../../../src/coordinator/fault-injector.ts';
import type { JobGraph } from '../../../src/graph/job-graph.ts';
import { silentLogger } from '../../../src/log/logger.ts';
import type { CheckpointOptions } from '../../../src/network/stream-event.ts';
import type { Key } from '../../../src/state/key-group.ts';
import type { KeyedStateBackend } from '../../../src/state/keyed-state-backend.ts';
import { LmdbStateBackend } from '../../../src/state/lmdb/lmdb-state-backend.ts';
import { ManualClock } from '../../fixtures/manual-clock.ts';
import { startNatsCluster, type NatsCluster } from '../../fixtures/nats-cluster.ts';
import { ACK_FIGURES, numbersToOutGraph } from '../../fixtures/numbers-to-out-graph.ts';
import { makeTempDir, removeDir } from '../../fixtures/recovery-helpers.ts';

const MAX = 128;
const COMPLETED = 50;
const count = new ValueStateDescriptor('count', { type: Types.int });

let root: string;
let graph: JobGraph;
before(async () => {
  root = makeTempDir('incremental-retention');
  graph = await numbersToOutGraph();
});
after(() => removeDir(root));

function lmdb(name: string): KeyedStateBackend {
  return new LmdbStateBackend({ localDir: join(root, `local-${name}`), cacheEntries: 64, incremental: { maxDeltas: 4 }, snapshotThread: true }).createKeyedStateBackend({
    jobId: 'job',
    uid: graph.vertices[1]!.operators[0]!.uid,
    subtask: 0,
    attempt: 0,
    keyGroupRange: { start: 0, end: MAX - 1 },
    maxParallelism: MAX,
    describe: () => 'the Out subtask',
  });
}

/**
 * Runs 50 completed checkpoints (and the declined ones among them) and returns what the storage
 * and the retained checkpoints hold at the end. `listShared` and `listCheckpoints` read the
 * storage's own listing (the directory, or the bucket's objects).
 */
async function fiftyCheckpoints(name: string, config: WeirConfig, jobId: string) {
  const storage = createCheckpointStorage(jobId, config);
  const worker = createCheckpointStorageWorkerView(config);
  await storage.initialize(true);
  const clock = new ManualClock(1_000_000);
  const triggered: Array<{ id: number; options: CheckpointOptions }> = [];
  const c = new CheckpointCoordinator({
    jobId,
    config,
    jobGraph: graph,
    log: silentLogger,
    clock,
    storage,
    triggerSources: (id, _t, options) => triggered.push({ id, options }),
    notifyComplete: () => {},
    notifyAborted: () => {},
    describeTasks: () => Promise.resolve({ tasks: [], silent: [] }),
    failJob: () => {},
  });
  c.startScheduler();
  const [numbers, out] = graph.vertices as [JobGraph['vertices'][number], JobGraph['vertices'][number]];
  const uid = out.operators[0]!.uid;
  const b = lmdb(name);
  const model = new Map<Key, number>();
  const rnd = seededRandom(99);
  const handle = b.getValueState(count);
  for (let i = 0; i < 20_000; i++) {
    const key = `k${i}`;
    b.setCurrentKey(key);
    handle.update(i);
    model.set(key, i);
  }
  let completed = 0;
  let declined = 0;
  let attempt = 0;
  while (completed < COMPLETED) {
    attempt++;
    // About 1% of the keys change between two checkpoints; some go.
    for (let i = 0; i < 200; i++) {
      const key = `k${Math.floor(rnd() * 20_000)}`;
      b.setCurrentKey(key);
      if (rnd() < 0.1) {
        handle.clear();
        model.delete(key);
      } else {
        handle.update(attempt * 100_000 + i);
        model.set(key, attempt * 100_000 + i);
      }
    }
    const result = c.trigger({ type: 'checkpoint' });
    result.catch(() => {});
    const { id, options } = triggered.at(-1)!;
    const keyed = b.snapshot({ checkpointId: id, type: 'checkpoint', incrementalBase: options.incrementalBase! });
    let snapshot: TaskStateSnapshot;
    try {
      snapshot = await worker.writeSnapshot({ checkpointId: id, location: options.targetDir }, [{ uid, operatorId: out.operators[0]!.operatorId, keyed, operator: new Map() }], { vertexId: out.id, subtask: 0, headUid: uid }, new AbortController().signal);
    } finally {
      for (const t of [...keyed.tables, ...(keyed.incremental?.tables ?? [])]) t.snapshot.release();
    }
    const empty: TaskStateSnapshot = { operators: [], inputChannels: {}, outputChannels: {} };
    c.receiveAck({ attempt: 0, vertexId: out.id, subtask: 0, checkpointId: id, state: snapshot, figures: ACK_FIGURES });
    if (attempt % 7 === 0) {
      c.receiveDecline({ attempt: 0, vertexId: numbers.id, subtask: 0, checkpointId: id, code: 'TASK_CHECKPOINT_FAILURE', reason: 'declined by the test' });
      await assert.rejects(result);
      declined++;
      continue;
    }
    c.receiveAck({ attempt: 0, vertexId: numbers.id, subtask: 0, checkpointId: id, state: empty, figures: ACK_FIGURES });
    c.receiveAck({ attempt: 0, vertexId: numbers.id, subtask: 1, checkpointId: id, state: empty, figures: ACK_FIGURES });
    await result;
    completed++;
  }
  await c.settled();
  // Let the deletions of the last aborted checkpoint land.
  await c.inFlightSettled();
  const retained = c.store.all().map((x) => x.metadata);
  // The latest restores to the workload's state.
  const latest = c.store.latest()!;
  const { metadata, location } = await storage.readForRestore(latest.directory);
  const restoredBackend = lmdb(`${name}-restored`);
  const h: KeyedStateHandle = metadata.operators.find((o) => o.uid === uid)!.subtasks[0]!.keyed!;
  await worker.restoreKeyed(restoredBackend, { keyed: [h], operator: {} }, location);
  const restored = new Map<Key, number>([...restoredBackend.entries<number>(count)]);
  b.close();
  restoredBackend.close();
  await worker.close?.();
  return { storage, retained, declined, model, restored, latestHandle: h };
}

function referenced(retained: ReadonlyArray<CheckpointMetadata>): string[] {
  return [...new Set(retained.flatMap((m) => sharedStateFiles(m).map(sharedFileBaseName)))].sort();
}

describe('retention with shared files', { timeout: 300_000 }, () => {
  test('on files: after 50 checkpoints with num-retained 3, shared/ holds exactly what the retained ones name', async () => {
    const dir = join(root, 'files');
    const config = buildConfig({ 'execution.checkpointing.dir': dir, 'execution.checkpointing.num-retained': 3, 'execution.checkpointing.incremental': true, 'execution.checkpointing.tolerable-failed-checkpoints': 100 });
    const r = await fiftyCheckpoints('files', config, 'job-files');
    assert.ok(r.declined >= 7);
    assert.equal(r.retained.length, 3);
    const jobDir = join(dir, 'job-files');
    assert.deepEqual(readdirSync(jobDir).filter((n) => n.startsWith('chk-')).sort(), r.retained.map((m) => `chk-${m.checkpointId}`).sort());
    assert.deepEqual(readdirSync(join(jobDir, 'shared')).sort(), referenced(r.retained));
    assert.deepEqual(r.restored, r.model);
    // A delta of the ~1% of keys changed is a small part of the state a restore reads.
    const latest = r.retained.at(-1)!;
    const written = keyedBytesWritten(r.latestHandle, latest.checkpointId);
    const full = keyedBytes(r.latestHandle);
    if (r.latestHandle.deltas !== undefined) assert.ok(written * 20 < full, `checkpoint ${latest.checkpointId} wrote ${written} of ${full} bytes`);
    else assert.equal(written, full, 'a materialized checkpoint writes its whole base');
  });

  describe('on the NATS object store', () => {
    let cluster: NatsCluster;
    before(async () => {
      cluster = await startNatsCluster();
    });
    after(async () => {
      await cluster?.stop();
    });

    test('after 50 checkpoints with num-retained 3, the bucket holds exactly the retained checkpoints and the shared files they name', async () => {
      const config = buildConfig({
        'execution.checkpointing.dir': 'nats-obj://ckpt-incr/base',
        'high-availability.nats.servers': cluster.servers,
        'execution.checkpointing.num-retained': 3,
        'execution.checkpointing.incremental': true,
        'execution.checkpointing.tolerable-failed-checkpoints': 100,
      });
      const r = await fiftyCheckpoints('nats', config, 'job-nats');
      await r.storage.close?.();
      assert.equal(r.retained.length, 3);
      assert.deepEqual(r.restored, r.model);
      const nc = await connect({ servers: cluster.servers.split(',') });
      let names: string[];
      try {
        names = (await (await new Objm(nc).open('ckpt-incr')).list()).map((o) => o.name).filter((n) => n.startsWith('base/job-nats/')).map((n) => n.slice('base/job-nats/'.length)).sort();
      } finally {
        await nc.close();
      }
      const expected = [...r.retained.map((m) => `chk-${m.checkpointId}/_metadata`), ...referenced(r.retained).map((f) => `shared/${f}`)].sort();
      assert.deepEqual(names, expected);
    });
  });
});
