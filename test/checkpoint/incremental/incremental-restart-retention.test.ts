// Retention with shared files across JobManager restarts, step by step: the real
// CheckpointCoordinator, completed-checkpoint store and CheckpointRestorer on the real checkpoint
// storage (a directory, and a JetStream object store on a private 3-node NATS cluster), one keyed
// subtask on the lmdb backend with incremental checkpoints (num-retained 3, max-deltas 4). Twice
// the JobManager "crashes" (the coordinator is abandoned with a checkpoint in flight whose delta
// is already written) and a new coordinator restores the job's latest checkpoint by path, as a
// new leader does; retention goes on and subsumes the checkpoints of the earlier coordinators.
// Afterwards every retained checkpoint restores to the state the workload had when it completed,
// and the job's location holds exactly the retained checkpoints and the shared files they name.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import { Objm } from '@nats-io/obj';
import { ValueStateDescriptor, Types } from '../../../src/index.ts';
import { buildConfig, type WeirConfig } from '../../../src/config/configuration.ts';
import type { CheckpointMetadata } from '../../../src/checkpoint/checkpoint-metadata.ts';
import type { CheckpointStorage, CheckpointStorageWorkerView } from '../../../src/checkpoint/checkpoint-storage.ts';
import { createCheckpointStorage, createCheckpointStorageWorkerView } from '../../../src/checkpoint/create-checkpoint-storage.ts';
import { sharedFileBaseName, sharedStateFiles } from '../../../src/checkpoint/incremental/shared-state-files.ts';
import type { KeyedStateHandle, TaskStateSnapshot } from '../../../src/checkpoint/state-handles.ts';
import { keyedBytes, keyedBytesWritten } from '../../../src/checkpoint/incremental/keyed-state-size.ts';
import { CheckpointCoordinator } from '../../../src/coordinator/checkpoint-coordinator.ts';
import { CheckpointRestorer } from '../../../src/coordinator/checkpoint-restorer.ts';
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
const KEYS = 5_000;
const count = new ValueStateDescriptor('count', { type: Types.int });

let root: string;
let graph: JobGraph;
let backends = 0;
before(async () => {
  root = makeTempDir('incremental-restart');
  graph = await numbersToOutGraph();
});
after(() => removeDir(root));

function lmdb(): KeyedStateBackend {
  return new LmdbStateBackend({ localDir: join(root, `local-${++backends}`), cacheEntries: 64, incremental: { maxDeltas: 4 }, snapshotThread: true }).createKeyedStateBackend({
    jobId: 'job',
    uid: graph.vertices[1]!.operators[0]!.uid,
    subtask: 0,
    attempt: 0,
    keyGroupRange: { start: 0, end: MAX - 1 },
    maxParallelism: MAX,
    describe: () => 'the Out subtask',
  });
}

/** One JobManager's coordinator, fed by hand as the tasks would. */
function coordinator(storage: CheckpointStorage, config: WeirConfig, jobId: string) {
  const triggered: Array<{ id: number; options: CheckpointOptions }> = [];
  const c = new CheckpointCoordinator({
    jobId,
    config,
    jobGraph: graph,
    log: silentLogger,
    clock: new ManualClock(1_000_000),
    storage,
    triggerSources: (id, _t, options) => triggered.push({ id, options }),
    notifyComplete: () => {},
    notifyAborted: () => {},
    describeTasks: () => Promise.resolve({ tasks: [], silent: [] }),
    failJob: () => {},
  });
  return { c, triggered };
}

async function restoreInto(worker: CheckpointStorageWorkerView, storage: CheckpointStorage, directory: string): Promise<Map<Key, number>> {
  const { metadata, location } = await storage.readForRestore(directory);
  const b = lmdb();
  const h = metadata.operators.find((o) => o.uid === 'out')!.subtasks[0]!.keyed!;
  await worker.restoreKeyed(b, { keyed: [h], operator: {} }, location);
  const state = new Map<Key, number>([...b.entries<number>(count)]);
  b.close();
  return state;
}

/**
 * 12 completed checkpoints per JobManager, three JobManagers: the first two crash with a
 * checkpoint in flight. Returns the storage of the last and what the workload held at each
 * completed checkpoint.
 */
async function withRestarts(config: WeirConfig, jobId: string, beforeRestart: () => Promise<void> = async () => {}) {
  const worker = createCheckpointStorageWorkerView(config);
  const models = new Map<number, Map<Key, number>>();
  const rnd = seededRandom(7);
  let storage = createCheckpointStorage(jobId, config);
  await storage.initialize(true);
  let { c, triggered } = coordinator(storage, config, jobId);
  c.startScheduler();
  let b = lmdb();
  let model = new Map<Key, number>();
  let handle = b.getValueState(count);
  for (let i = 0; i < KEYS; i++) {
    b.setCurrentKey(`k${i}`);
    handle.update(i);
    model.set(`k${i}`, i);
  }
  const empty: TaskStateSnapshot = { operators: [], inputChannels: {}, outputChannels: {} };
  const out = graph.vertices[1]!;
  const numbers = graph.vertices[0]!;
  let round = 0;
  const handles = new Map<number, KeyedStateHandle>();
  /** Per restart: the handle restored and the first checkpoint's handle after it. */
  const afterRestart: Array<{ restored: KeyedStateHandle; next?: number }> = [];
  /** Changes ~1% of the keys, triggers, and writes the keyed subtask's snapshot; the caller acks the rest. */
  const step = async () => {
    round++;
    for (let i = 0; i < KEYS / 100; i++) {
      const key = `k${Math.floor(rnd() * KEYS)}`;
      b.setCurrentKey(key);
      if (rnd() < 0.1) {
        handle.clear();
        model.delete(key);
      } else {
        handle.update(round * 100_000 + i);
        model.set(key, round * 100_000 + i);
      }
    }
    const result = c.trigger({ type: 'checkpoint' });
    result.catch(() => {});
    const { id, options } = triggered.at(-1)!;
    const keyed = b.snapshot({ checkpointId: id, type: 'checkpoint', incrementalBase: options.incrementalBase!, location: options.targetDir });
    try {
      const state = await worker.writeSnapshot({ checkpointId: id, location: options.targetDir }, [{ uid: 'out', operatorId: out.operators[0]!.operatorId, keyed, operator: new Map() }], { vertexId: out.id, subtask: 0, headUid: 'out' }, new AbortController().signal);
      c.receiveAck({ attempt: 0, vertexId: out.id, subtask: 0, checkpointId: id, state, figures: ACK_FIGURES });
      handles.set(id, state.operators[0]!.keyed!);
    } finally {
      for (const t of [...keyed.tables, ...(keyed.incremental?.tables ?? [])]) t.snapshot.release();
    }
    return { id, result };
  };
  for (let jm = 0; jm < 3; jm++) {
    for (let completed = 0; completed < 12; ) {
      const { id, result } = await step();
      if (round % 7 === 0) {
        c.receiveDecline({ attempt: 0, vertexId: numbers.id, subtask: 0, checkpointId: id, code: 'TASK_CHECKPOINT_FAILURE', reason: 'declined by the test' });
        await assert.rejects(result);
        continue;
      }
      for (const subtask of [0, 1]) c.receiveAck({ attempt: 0, vertexId: numbers.id, subtask, checkpointId: id, state: empty, figures: ACK_FIGURES });
      await result;
      models.set(id, new Map(model));
      completed++;
      const last = afterRestart.at(-1);
      if (last && last.next === undefined) last.next = id;
    }
    if (jm === 2) break;
    // The JobManager crashes with a checkpoint in flight whose delta is written (nobody will finish or delete it).
    const { id: inFlight } = await step();
    const latest = c.store.latest()!;
    await c.settled();
    await beforeRestart();
    await storage.close?.();
    // A new leader restores the latest retained checkpoint by path, numbering on from the HA counter.
    storage = createCheckpointStorage(jobId, config);
    await storage.initialize(true);
    ({ c, triggered } = coordinator(storage, config, jobId));
    const restorer = new CheckpointRestorer({ jobId, graph, storage, store: c.store, stats: c.stats, log: silentLogger, fallbackPastCommitted: 'fail', onRestored: () => {} });
    const restore = await restorer.fromPath(latest.directory, false);
    assert.equal(restore.checkpointId, latest.id);
    assert.deepEqual(c.store.all().map((x) => x.id), [...models.keys()].slice(-3), 'the retained checkpoints are the new leader\'s again');
    await c.setNextId(inFlight + 1);
    c.startScheduler();
    b.close();
    b = lmdb();
    const h = (await storage.readForRestore(latest.directory)).metadata.operators.find((o) => o.uid === 'out')!.subtasks[0]!.keyed!;
    await worker.restoreKeyed(b, { keyed: [h], operator: {} }, latest.directory);
    // What a task does after its keyed restore (noteRestoredChain): its next checkpoint may build on the chain.
    b.restoredChain?.({ checkpointId: latest.id, handle: h, location: latest.directory });
    afterRestart.push({ restored: h });
    handle = b.getValueState(count);
    model = new Map(models.get(latest.id)!);
  }
  await c.inFlightSettled();
  b.close();
  const retained = c.store.all().map((x) => x.metadata);
  const restored = new Map<number, Map<Key, number>>();
  for (const x of c.store.all()) restored.set(x.id, await restoreInto(worker, storage, x.directory));
  await worker.close?.();
  return { storage, retained, models, restored, afterRestart: afterRestart.map((r) => ({ restored: r.restored, next: handles.get(r.next!)! })) };
}

function referenced(retained: ReadonlyArray<CheckpointMetadata>): string[] {
  return [...new Set(retained.flatMap((m) => sharedStateFiles(m).map(sharedFileBaseName)))].sort();
}

function assertEveryRetainedRestores(r: Awaited<ReturnType<typeof withRestarts>>): void {
  assert.equal(r.retained.length, 3);
  for (const m of r.retained) {
    assert.ok(r.models.get(m.checkpointId)!.size > 0);
    assert.deepEqual(r.restored.get(m.checkpointId), r.models.get(m.checkpointId), `checkpoint ${m.checkpointId} restores to the state it was taken of`);
  }
  assert.ok(r.retained.some((m) => sharedStateFiles(m).length > 0));
  // The first checkpoint after each restart built on the restored chain: a delta of what changed since (unless the chain was due to materialize).
  assert.equal(r.afterRestart.length, 2);
  for (const { restored, next } of r.afterRestart) {
    const deltas = restored.deltas ?? [];
    if (deltas.length >= 4 || deltas.reduce((n, d) => n + d.bytes, 0) > restored.bytes) continue;
    assert.equal(next.file, restored.file, `the same base: ${JSON.stringify({ restored: restored.file, rd: deltas.length, next: next.file, nd: next.deltas?.length })}`);
    assert.deepEqual(next.deltas?.slice(0, deltas.length), deltas, 'the restored deltas, then its own');
    assert.ok(keyedBytesWritten(next, next.deltas!.at(-1)!.writtenBy!) * 10 < keyedBytes(next), 'it wrote a small part of the state');
  }
}

describe('retention with shared files across JobManager restarts', { timeout: 300_000 }, () => {
  test('on files: every retained checkpoint restores; the job directory holds exactly them and the shared files they name', async () => {
    const dir = join(root, 'files');
    const config = buildConfig({ 'execution.checkpointing.dir': dir, 'execution.checkpointing.num-retained': 3, 'execution.checkpointing.incremental': true, 'execution.checkpointing.tolerable-failed-checkpoints': 100 });
    // A shared file of an old checkpoint whose deletion the crashed leader did not finish: nothing names it.
    const r = await withRestarts(config, 'job-files', async () => writeFileSync(join(dir, 'job-files', 'shared', 'out-0-0-c1-delta'), 'left behind'));
    assertEveryRetainedRestores(r);
    const jobDir = join(dir, 'job-files');
    assert.deepEqual(readdirSync(jobDir).filter((n) => n.startsWith('chk-')).sort(), r.retained.map((m) => `chk-${m.checkpointId}`).sort());
    assert.deepEqual(readdirSync(join(jobDir, 'shared')).sort(), referenced(r.retained));
  });

  describe('on the NATS object store', () => {
    let cluster: NatsCluster;
    before(async () => {
      cluster = await startNatsCluster();
    });
    after(async () => {
      await cluster?.stop();
    });

    test('every retained checkpoint restores; the bucket holds exactly them and the shared files they name', async () => {
      const config = buildConfig({
        'execution.checkpointing.dir': 'nats-obj://ckpt-restart/base',
        'high-availability.nats.servers': cluster.servers,
        'execution.checkpointing.num-retained': 3,
        'execution.checkpointing.incremental': true,
        'execution.checkpointing.tolerable-failed-checkpoints': 100,
      });
      const r = await withRestarts(config, 'job-nats');
      await r.storage.close?.();
      assertEveryRetainedRestores(r);
      const nc = await connect({ servers: cluster.servers.split(',') });
      let names: string[];
      try {
        names = (await (await new Objm(nc).open('ckpt-restart')).list()).map((o) => o.name).filter((n) => n.startsWith('base/job-nats/')).map((n) => n.slice('base/job-nats/'.length)).sort();
      } finally {
        await nc.close();
      }
      const expected = [...r.retained.map((m) => `chk-${m.checkpointId}/_metadata`), ...referenced(r.retained).map((f) => `shared/${f}`)].sort();
      assert.deepEqual(names, expected);
    });
  });
});
