// Claim modes (execution.state-recovery.claim-mode), step by step on the real coordinator,
// restorer and checkpoint storage: job A takes incremental checkpoints on the lmdb backend
// (num-retained 3); job B (another job id, the same checkpoint directory) is started from A's
// latest retained checkpoint. NO_CLAIM (the default): B never retains or deletes anything of A,
// its first checkpoint names none of A's files, and A's checkpoints all restore afterwards.
// CLAIM: B retains A's checkpoint as its own and builds its next checkpoints on that chain where
// it lies (deltas naming A's shared files from B's location); once subsumed, its directory goes,
// A's shared files stay exactly while a retained checkpoint of B names them and are deleted once
// none does, while B's retained checkpoints restore.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ValueStateDescriptor, Types } from '../../../src/index.ts';
import { buildConfig } from '../../../src/config/configuration.ts';
import type { CheckpointStorage, CheckpointStorageWorkerView } from '../../../src/checkpoint/checkpoint-storage.ts';
import { createCheckpointStorage, createCheckpointStorageWorkerView } from '../../../src/checkpoint/create-checkpoint-storage.ts';
import { keyedBytes, keyedBytesWritten } from '../../../src/checkpoint/incremental/keyed-state-size.ts';
import { sharedFileLocations } from '../../../src/checkpoint/incremental/shared-state-files.ts';
import type { KeyedStateHandle, TaskStateSnapshot } from '../../../src/checkpoint/state-handles.ts';
import { CheckpointCoordinator } from '../../../src/coordinator/checkpoint-coordinator.ts';
import { CheckpointRestorer } from '../../../src/coordinator/checkpoint-restorer.ts';
import type { CompletedCheckpoint } from '../../../src/coordinator/completed-checkpoint.ts';
import type { JobGraph } from '../../../src/graph/job-graph.ts';
import { taskKey } from '../../../src/ids/task-key.ts';
import { silentLogger } from '../../../src/log/logger.ts';
import type { CheckpointOptions } from '../../../src/network/stream-event.ts';
import type { Key } from '../../../src/state/key-group.ts';
import type { KeyedStateBackend } from '../../../src/state/keyed-state-backend.ts';
import { LmdbStateBackend } from '../../../src/state/lmdb/lmdb-state-backend.ts';
import { ManualClock } from '../../fixtures/manual-clock.ts';
import { ACK_FIGURES, numbersToOutGraph } from '../../fixtures/numbers-to-out-graph.ts';
import { makeTempDir, removeDir } from '../../fixtures/recovery-helpers.ts';

const MAX = 128;
const KEYS = 3_000;
const count = new ValueStateDescriptor('count', { type: Types.int });

let root: string;
let graph: JobGraph;
let backends = 0;
before(async () => {
  root = makeTempDir('claim-mode');
  graph = await numbersToOutGraph();
});
after(() => removeDir(root));

function lmdb(): KeyedStateBackend {
  return new LmdbStateBackend({ localDir: join(root, `local-${++backends}`), cacheEntries: 64, incremental: { maxDeltas: 4 }, snapshotThread: true }).createKeyedStateBackend({
    jobId: 'job',
    uid: 'out',
    subtask: 0,
    attempt: 0,
    keyGroupRange: { start: 0, end: MAX - 1 },
    maxParallelism: MAX,
    describe: () => 'the Out subtask',
  });
}

/** One job: its coordinator fed by hand as its tasks would, one keyed subtask on lmdb. */
class Job {
  readonly storage: CheckpointStorage;
  readonly c: CheckpointCoordinator;
  readonly restorer: CheckpointRestorer;
  readonly models = new Map<number, Map<Key, number>>();
  readonly handles = new Map<number, KeyedStateHandle>();
  b = lmdb();
  model = new Map<Key, number>();
  #triggered: Array<{ id: number; options: CheckpointOptions }> = [];
  #round = 0;

  constructor(
    readonly jobId: string,
    dir: string,
    claimMode: 'NO_CLAIM' | 'CLAIM',
    readonly worker: CheckpointStorageWorkerView,
  ) {
    const config = buildConfig({ 'execution.checkpointing.dir': dir, 'execution.checkpointing.num-retained': 3, 'execution.checkpointing.incremental': true, 'execution.state-recovery.claim-mode': claimMode });
    this.storage = createCheckpointStorage(jobId, config);
    this.c = new CheckpointCoordinator({
      jobId,
      config,
      jobGraph: graph,
      log: silentLogger,
      clock: new ManualClock(1_000_000),
      storage: this.storage,
      triggerSources: (id, _t, options) => this.#triggered.push({ id, options }),
      notifyComplete: () => {},
      notifyAborted: () => {},
      describeTasks: () => Promise.resolve({ tasks: [], silent: [] }),
      failJob: () => {},
    });
    this.restorer = new CheckpointRestorer({ jobId, graph, storage: this.storage, store: this.c.store, stats: this.c.stats, log: silentLogger, fallbackPastCommitted: 'fail', claimMode, onRestored: () => {} });
  }

  async start(from?: CompletedCheckpoint): Promise<void> {
    await this.storage.initialize(true);
    if (from) {
      const restore = await this.restorer.fromPath(from.directory, false);
      await this.c.setNextId(restore.checkpointId + 1);
      const h = restore.assigned.get(taskKey(graph.vertices[1]!.id, 0))!.operators['out']!.keyed;
      await this.worker.restoreKeyed(this.b, { keyed: h, operator: {} }, restore.location);
      this.b.restoredChain?.({ checkpointId: restore.checkpointId, handle: h[0]!, location: restore.location });
      this.model = new Map([...this.b.entries<number>(count)]);
    } else {
      const v = this.b.getValueState(count);
      for (let i = 0; i < KEYS; i++) {
        this.b.setCurrentKey(`k${i}`);
        v.update(i);
        this.model.set(`k${i}`, i);
      }
    }
    this.c.startScheduler();
  }

  /** Changes 1% of the keys and completes one checkpoint. */
  async checkpoint(): Promise<number> {
    const v = this.b.getValueState(count);
    this.#round++;
    for (let i = 0; i < KEYS / 100; i++) {
      const key = `k${(this.#round * 37 + i * 101) % KEYS}`;
      this.b.setCurrentKey(key);
      v.update(this.#round * 100_000 + i);
      this.model.set(key, this.#round * 100_000 + i);
    }
    const result = this.c.trigger({ type: 'checkpoint' });
    const { id, options } = this.#triggered.at(-1)!;
    const keyed = this.b.snapshot({ checkpointId: id, type: 'checkpoint', incrementalBase: options.incrementalBase!, location: options.targetDir });
    let state: TaskStateSnapshot;
    try {
      state = await this.worker.writeSnapshot({ checkpointId: id, location: options.targetDir }, [{ uid: 'out', operatorId: graph.vertices[1]!.operators[0]!.operatorId, keyed, operator: new Map() }], { vertexId: graph.vertices[1]!.id, subtask: 0, headUid: 'out' }, new AbortController().signal);
    } finally {
      for (const t of [...keyed.tables, ...(keyed.incremental?.tables ?? [])]) t.snapshot.release();
    }
    const empty: TaskStateSnapshot = { operators: [], inputChannels: {}, outputChannels: {} };
    this.c.receiveAck({ attempt: 0, vertexId: graph.vertices[1]!.id, subtask: 0, checkpointId: id, state, figures: ACK_FIGURES });
    for (const subtask of [0, 1]) this.c.receiveAck({ attempt: 0, vertexId: graph.vertices[0]!.id, subtask, checkpointId: id, state: empty, figures: ACK_FIGURES });
    await result;
    this.models.set(id, new Map(this.model));
    this.handles.set(id, state.operators[0]!.keyed!);
    return id;
  }

  async restoresExactly(checkpoint: CompletedCheckpoint, expected: Map<Key, number>): Promise<void> {
    const { metadata, location } = await this.storage.readForRestore(checkpoint.directory);
    const b = lmdb();
    await this.worker.restoreKeyed(b, { keyed: [metadata.operators.find((o) => o.uid === 'out')!.subtasks[0]!.keyed!], operator: {} }, location);
    assert.deepEqual(new Map([...b.entries<number>(count)]), expected, `checkpoint ${checkpoint.id} at ${checkpoint.directory} restores exactly`);
    b.close();
  }

  close(): void {
    this.b.close();
  }
}

/** Every file below `dir`, relative to it. */
function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name).slice(dir.length + 1)).sort();
}

/** Job A with 8 completed checkpoints (3 retained, the latest on a chain of deltas). */
async function jobA(dir: string, worker: CheckpointStorageWorkerView): Promise<Job> {
  const a = new Job('job-a', dir, 'NO_CLAIM', worker);
  await a.start();
  for (let i = 0; i < 8; i++) await a.checkpoint();
  assert.ok(a.handles.get(a.c.store.latest()!.id)!.deltas !== undefined, 'A\'s latest is a delta on a chain');
  return a;
}

describe('claim modes', { timeout: 120_000 }, () => {
  test('NO_CLAIM: the job started from another job\'s incremental checkpoint never retains or deletes it, and its first checkpoint names none of its files', async () => {
    const dir = join(root, 'no-claim');
    const worker = createCheckpointStorageWorkerView(buildConfig({}));
    const a = await jobA(dir, worker);
    const aRetained = [...a.c.store.all()];
    const aFiles = files(join(dir, 'job-a'));
    const b = new Job('job-b', dir, 'NO_CLAIM', worker);
    await b.start(a.c.store.latest());
    assert.deepEqual(b.c.store.all(), [], 'nothing of A is retained by B');
    const first = await b.checkpoint();
    const aLocations = new Set(aRetained.flatMap((x) => sharedFileLocations(x.metadata, x.directory)));
    const bFirst = b.c.store.all().find((x) => x.id === first)!;
    assert.ok(!sharedFileLocations(bFirst.metadata, bFirst.directory).some((f) => aLocations.has(f)), 'B\'s first checkpoint writes its own files');
    assert.equal(b.handles.get(first)!.deltas, undefined, 'a full base');
    for (let i = 0; i < 7; i++) await b.checkpoint();
    assert.deepEqual(files(join(dir, 'job-a')), aFiles, 'A\'s location is as A left it');
    for (const x of aRetained) await a.restoresExactly(x, a.models.get(x.id)!);
    for (const x of b.c.store.all()) await b.restoresExactly(x, b.models.get(x.id)!);
    a.close();
    b.close();
  });

  test('CLAIM: the job retains the other job\'s checkpoint as its own, builds its next checkpoints on that chain where it lies, and deletes the claimed files once no retained checkpoint names them', async () => {
    const dir = join(root, 'claim');
    const worker = createCheckpointStorageWorkerView(buildConfig({}));
    const a = await jobA(dir, worker);
    const claimed = a.c.store.latest()!;
    const others = a.c.store.all().filter((x) => x.id !== claimed.id);
    const b = new Job('job-b', dir, 'CLAIM', worker);
    await b.start(claimed);
    assert.deepEqual(b.c.store.all().map((x) => x.id), [claimed.id], 'B retains the claimed checkpoint');
    assert.deepEqual(b.model, a.models.get(claimed.id));
    const first = await b.checkpoint();
    // B builds on the claimed chain where it lies: its first checkpoint names A's base and deltas from B's location, and writes only a delta.
    const claimedHandle = a.handles.get(claimed.id)!;
    const firstHandle = b.handles.get(first)!;
    assert.equal(firstHandle.file, `../../job-a/shared/${claimedHandle.file.split('/').at(-1)}`, 'the claimed base, named from B\'s checkpoint');
    assert.deepEqual(firstHandle.deltas!.slice(0, -1).map((d) => d.file), claimedHandle.deltas!.map((d) => `../../job-a/shared/${d.file.split('/').at(-1)}`));
    assert.equal(firstHandle.deltas!.at(-1)!.file, `../shared/out-0-0-c${first}-delta`);
    const bFirst = b.c.store.all().find((x) => x.id === first)!;
    assert.ok(keyedBytesWritten(firstHandle, first) * 5 < keyedBytes(firstHandle), `B's first checkpoint wrote ${keyedBytesWritten(firstHandle, first)} of ${keyedBytes(firstHandle)} bytes`);
    const claimedFiles = sharedFileLocations(claimed.metadata, claimed.directory);
    assert.deepEqual(sharedFileLocations(bFirst.metadata, bFirst.directory).filter((f) => claimedFiles.includes(f)).sort(), [...claimedFiles].sort(), 'the same files, counted by location');
    await b.checkpoint();
    assert.ok(existsSync(claimed.directory), 'still retained (num-retained 3)');
    await b.checkpoint();
    assert.ok(!existsSync(claimed.directory), 'subsumed: its directory is deleted');
    // The claimed chain's files stay while a retained checkpoint of B names them.
    const bNames = () => new Set(b.c.store.all().flatMap((x) => sharedFileLocations(x.metadata, x.directory)));
    for (const f of claimedFiles) assert.equal(existsSync(f), bNames().has(f), `${f} exists exactly while a retained checkpoint of B names it`);
    for (const x of b.c.store.all()) await b.restoresExactly(x, b.models.get(x.id)!);
    // Once B's chain is materialized (max-deltas 4) and the checkpoints on the old chain are subsumed, A's files that B claimed are gone.
    for (let i = 0; i < 8 && claimedFiles.some((f) => bNames().has(f)); i++) await b.checkpoint();
    assert.ok(!claimedFiles.some((f) => bNames().has(f)), 'B\'s retained checkpoints name none of the claimed files any more');
    for (const f of claimedFiles) assert.ok(!existsSync(f), `${f} is deleted`);
    // A's other checkpoints were never B's: their directories stay.
    for (const x of others) assert.ok(existsSync(join(x.directory, '_metadata')));
    for (const x of b.c.store.all()) await b.restoresExactly(x, b.models.get(x.id)!);
    a.close();
    b.close();
  });
});
