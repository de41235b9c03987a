// Reference counting of the files incremental checkpoints share: the registry on its own, the
// completed-checkpoint store that deletes a file with the last retained checkpoint naming it
// (subsumption, a checkpoint older than the latest, the job's end), the counts rebuilt from the
// retained `_metadata` after a JobManager restart, a job restored from another job's checkpoint
// (NO_CLAIM) never deleting that job's files, and the coordinator pinning a pending checkpoint's
// base, releasing it and the files written for an aborted checkpoint, and refusing to complete a
// checkpoint whose base files were discarded meanwhile.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { METADATA_VERSION, type CheckpointMetadata } from '../../../src/checkpoint/checkpoint-metadata.ts';
import { SharedStateRegistry } from '../../../src/checkpoint/incremental/shared-state-registry.ts';
import { sharedStateFiles } from '../../../src/checkpoint/incremental/shared-state-files.ts';
import type { KeyedStateHandle, TaskStateSnapshot } from '../../../src/checkpoint/state-handles.ts';
import { buildConfig } from '../../../src/config/configuration.ts';
import { CheckpointCoordinator } from '../../../src/coordinator/checkpoint-coordinator.ts';
import { CompletedCheckpointStore } from '../../../src/coordinator/completed-checkpoint-store.ts';
import type { CompletedCheckpoint } from '../../../src/coordinator/completed-checkpoint.ts';
import type { JobGraph, JobVertex } from '../../../src/graph/job-graph.ts';
import { silentLogger } from '../../../src/log/logger.ts';
import type { CheckpointOptions } from '../../../src/network/stream-event.ts';
import { FakeCheckpointStorage, recordingLogger } from '../../fixtures/fake-checkpoint-storage.ts';
import { ManualClock } from '../../fixtures/manual-clock.ts';
import { ACK_FIGURES, numbersToOutGraph } from '../../fixtures/numbers-to-out-graph.ts';

/** A shared file's handle, written for checkpoint `by`. */
function file(name: string, by: number): KeyedStateHandle {
  return { file: `../shared/${name}`, format: 2, keyGroups: [{ keyGroup: 0, offset: 8, length: 10, crc32: 0 }], states: [], entries: 1, bytes: 18, crc32: 0, writtenBy: by };
}

/** A subtask's incremental handle: a base and its deltas. */
function chain(base: KeyedStateHandle, ...deltas: KeyedStateHandle[]): KeyedStateHandle {
  return deltas.length === 0 ? base : { ...base, deltas };
}

function metadata(id: number, handles: KeyedStateHandle[], jobId = 'job'): CheckpointMetadata {
  return {
    formatVersion: METADATA_VERSION,
    jobId,
    checkpointId: id,
    type: 'checkpoint',
    unaligned: false,
    triggeredAt: id * 1000,
    completedAt: id * 1000 + 10,
    operators: [{ uid: 'counts', operatorId: 'op', name: 'counts', vertexId: 'v', parallelism: handles.length, maxParallelism: 128, subtasks: handles.map((keyed, subtask) => ({ subtask, keyed, operator: {} })) }],
  };
}

function completed(id: number, handles: KeyedStateHandle[], jobId = 'job'): CompletedCheckpoint {
  return { id, type: 'checkpoint', directory: `/fake/job/chk-${id}`, triggeredAt: id * 1000, completedAt: id * 1000 + 10, stateBytes: 0, metadata: metadata(id, handles, jobId) };
}

/** How handles name shared files. */
const named = (...names: string[]) => names.map((n) => `../shared/${n}`);
/** Where they lie (what the registry counts and the storage is asked to delete). */
const shared = (...names: string[]) => names.map((n) => `/fake/job/shared/${n}`);

describe('SharedStateRegistry', () => {
  test('counts one reference per checkpoint; a file is freed when the last checkpoint naming it is released', () => {
    const r = new SharedStateRegistry();
    assert.deepEqual(r.register(1, shared('a', 'b')), []);
    assert.deepEqual(r.register(2, shared('a', 'b', 'c', 'c')), [], 'a file named twice by one checkpoint counts once');
    assert.equal(r.references('/fake/job/shared/a'), 2);
    assert.equal(r.references('/fake/job/shared/c'), 1);
    assert.deepEqual(r.release(1), []);
    assert.deepEqual(r.release(2).sort(), shared('a', 'b', 'c'));
    assert.deepEqual(r.files, []);
    assert.deepEqual(r.release(2), [], 'releasing twice frees nothing');
  });

  test('registering a checkpoint again replaces what it held (a pending checkpoint\'s pin becomes its own files)', () => {
    const r = new SharedStateRegistry();
    r.register(1, shared('base', 'd1'));
    r.register(2, r.filesOf(1)); // checkpoint 2 triggered on 1: pins 1's files
    assert.deepEqual(r.release(1), [], 'checkpoint 1 subsumed: 2 still pins its files');
    assert.deepEqual(r.register(2, shared('base', 'd2')), shared('d1'), 'completed without d1: d1 is nobody\'s now');
    assert.deepEqual(r.filesOf(2), shared('base', 'd2'));
  });

  test('rebuild: the counts of the retained checkpoints\' _metadata', () => {
    const m3 = metadata(3, [chain(file('b1', 1), file('d2', 2), file('d3', 3)), chain(file('x3', 3))]);
    const m4 = metadata(4, [chain(file('b1', 1), file('d2', 2), file('d3', 3), file('d4', 4)), chain(file('x3', 3))]);
    assert.deepEqual(sharedStateFiles(m4), named('b1', 'd2', 'd3', 'd4', 'x3'));
    const r = SharedStateRegistry.rebuild([m3, m4].map((m) => ({ metadata: m, location: `/fake/job/chk-${m.checkpointId}` })));
    assert.equal(r.references('/fake/job/shared/b1'), 2);
    assert.equal(r.references('/fake/job/shared/d4'), 1);
    assert.deepEqual(r.release(3), []);
    assert.deepEqual(r.release(4), shared('b1', 'd2', 'd3', 'd4', 'x3'));
  });
});

describe('the completed-checkpoint store with shared files', () => {
  const setup = (retained: number) => {
    const storage = new FakeCheckpointStorage();
    return { s: new CompletedCheckpointStore(retained, storage, recordingLogger()), storage };
  };

  test('subsumption deletes a shared file only when no retained checkpoint names it any more', async () => {
    const { s, storage } = setup(2);
    await s.add(completed(1, [chain(file('b1', 1))]));
    await s.add(completed(2, [chain(file('b1', 1), file('d2', 2))]));
    await s.add(completed(3, [chain(file('b1', 1), file('d2', 2), file('d3', 3))]));
    assert.deepEqual(storage.discarded, ['/fake/job/chk-1']);
    assert.deepEqual(storage.discardedShared, [], 'b1 is named by 2 and 3');
    // Checkpoint 4 materialized: a new base.
    await s.add(completed(4, [chain(file('b4', 4))]));
    assert.deepEqual(storage.discardedShared, [], 'checkpoint 3 still names b1, d2, d3');
    await s.add(completed(5, [chain(file('b4', 4), file('d5', 5))]));
    assert.deepEqual(storage.discardedShared.sort(), shared('b1', 'd2', 'd3'));
    await s.discardAll('job finished');
    assert.deepEqual(storage.discardedShared.sort(), shared('b1', 'b4', 'd2', 'd3', 'd5'));
  });

  test('a checkpoint older than the latest is discarded at once without touching files the retained ones name', async () => {
    const { s, storage } = setup(1);
    await s.add(completed(2, [chain(file('b1', 1), file('d2', 2))]));
    assert.equal(await s.add(completed(1, [chain(file('b1', 1))])), false);
    assert.deepEqual(storage.discardedShared, []);
    assert.equal(s.shared.references('/fake/job/shared/b1'), 1);
  });

  test('after a JobManager restart the retained checkpoint adopted from its _metadata counts its files, which go when it is subsumed and unused', async () => {
    const { s, storage } = setup(1);
    // The new JobMaster restores checkpoint 7 of its own job and adopts it.
    await s.adopt(completed(7, [chain(file('b5', 5), file('d6', 6), file('d7', 7))]));
    assert.equal(s.shared.references('/fake/job/shared/b5'), 1);
    // Its first checkpoint is full (a new attempt has no chain of its own).
    await s.add(completed(8, [chain(file('b8', 8))]));
    assert.deepEqual(storage.discarded, ['/fake/job/chk-7']);
    assert.deepEqual(storage.discardedShared.sort(), shared('b5', 'd6', 'd7'));
  });

  test('NO_CLAIM: a job restored from another job\'s checkpoint never registers, so never deletes, that job\'s files', async () => {
    const { s, storage } = setup(1);
    // Restored from the other job's chk-7 (not adopted: another job id); its first checkpoint is full.
    await s.add(completed(1, [chain(file('b1', 1))]));
    await s.add(completed(2, [chain(file('b1', 1), file('d2', 2))]));
    await s.add(completed(3, [chain(file('b3', 3))]));
    assert.deepEqual(storage.discardedShared.sort(), shared('b1', 'd2'));
    assert.equal(s.shared.references('/fake/job/shared/b5'), 0);
    assert.ok(!storage.discardedShared.some((f) => f.includes('b5') || f.includes('d6') || f.includes('d7')));
  });
});

describe('the coordinator with incremental checkpoints', () => {
  let graph: JobGraph;
  let numbers: JobVertex;
  let out: JobVertex;
  before(async () => {
    graph = await numbersToOutGraph();
    numbers = graph.vertices.find((v) => v.name === 'Numbers')!;
    out = graph.vertices.find((v) => v.name === 'Out')!;
  });

  function setup(settings: Record<string, unknown>) {
    const clock = new ManualClock(1_000_000);
    const storage = new FakeCheckpointStorage();
    const triggered: Array<{ id: number; options: CheckpointOptions }> = [];
    const c = new CheckpointCoordinator({
      jobId: 'job',
      config: buildConfig({ 'execution.checkpointing.incremental': true, 'execution.checkpointing.tolerable-failed-checkpoints': 10, ...settings }),
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
    const state = (keyed: KeyedStateHandle | null): TaskStateSnapshot => ({ operators: keyed ? [{ operatorId: 'op', uid: graph.vertices[1]!.operators[0]!.uid, keyed, operator: {} }] : [], inputChannels: {}, outputChannels: {} });
    /** Acknowledges checkpoint `id`: the Out subtask with `keyed` (the sources have no keyed state). */
    const ackAll = (id: number, keyed: KeyedStateHandle | null) => {
      c.receiveAck({ attempt: 0, vertexId: numbers.id, subtask: 0, checkpointId: id, state: state(null), figures: ACK_FIGURES });
      c.receiveAck({ attempt: 0, vertexId: numbers.id, subtask: 1, checkpointId: id, state: state(null), figures: ACK_FIGURES });
      c.receiveAck({ attempt: 0, vertexId: out.id, subtask: 0, checkpointId: id, state: state(keyed), figures: ACK_FIGURES });
    };
    const trigger = () => {
      const result = c.trigger({ type: 'checkpoint' });
      result.catch(() => {});
      return { id: triggered.at(-1)!.id, options: triggered.at(-1)!.options, result };
    };
    return { c, storage, triggered, ackAll, trigger, state };
  }

  test('each checkpoint names the latest completed one as its base and pins its files until it is done; savepoints have no base', async () => {
    const { c, storage, ackAll, trigger, triggered } = setup({ 'execution.checkpointing.num-retained': 1 });
    const t1 = trigger();
    assert.equal(t1.options.incrementalBase, null, 'nothing completed yet: a full base');
    ackAll(1, chain(file('b1', 1)));
    await t1.result;
    const t2 = trigger();
    assert.equal(t2.options.incrementalBase, 1);
    assert.equal(c.store.shared.references('/fake/job/shared/b1'), 2, 'checkpoint 1 and the pin of pending checkpoint 2');
    ackAll(2, chain(file('b1', 1), file('d2', 2)));
    await t2.result;
    assert.equal(c.store.shared.references('/fake/job/shared/b1'), 1);
    assert.deepEqual(storage.discardedShared, []);
    const sp = c.trigger({ type: 'savepoint', targetDir: '/savepoints/sp-1', force: true });
    sp.catch(() => {});
    assert.equal(triggered.at(-1)!.options.type, 'savepoint');
    assert.ok(!('incrementalBase' in triggered.at(-1)!.options), 'a savepoint is full and canonical');
  });

  test('an aborted checkpoint releases its pin and deletes the files written for it alone; a late acknowledgement\'s files go too', async () => {
    const { c, storage, ackAll, trigger, state } = setup({ 'execution.checkpointing.num-retained': 1 });
    const t1 = trigger();
    ackAll(1, chain(file('b1', 1)));
    await t1.result;
    const t2 = trigger();
    // The Out subtask acknowledges with its delta, then a source declines.
    c.receiveAck({ attempt: 0, vertexId: out.id, subtask: 0, checkpointId: 2, state: state(chain(file('b1', 1), file('d2', 2))), figures: ACK_FIGURES });
    c.receiveDecline({ attempt: 0, vertexId: numbers.id, subtask: 0, checkpointId: 2, code: 'TASK_CHECKPOINT_FAILURE', reason: 'no' });
    await assert.rejects(t2.result);
    await c.settled();
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(storage.discardedShared, shared('d2'), 'd2 was written for checkpoint 2 alone; b1 stays');
    assert.equal(c.store.shared.references('/fake/job/shared/b1'), 1);
    // Checkpoint 3 is aborted before the Out subtask acknowledges; its acknowledgement comes late.
    const t3 = trigger();
    c.receiveDecline({ attempt: 0, vertexId: numbers.id, subtask: 0, checkpointId: 3, code: 'TASK_CHECKPOINT_FAILURE', reason: 'no' });
    await assert.rejects(t3.result);
    c.receiveAck({ attempt: 0, vertexId: out.id, subtask: 0, checkpointId: 3, state: state(chain(file('b1', 1), file('d3', 3))), figures: ACK_FIGURES });
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(storage.discardedShared, shared('d2', 'd3'));
  });

  test('with concurrent checkpoints, one whose base files were subsumed before it completed fails, naming the file', async () => {
    const { c, ackAll, trigger, storage } = setup({ 'execution.checkpointing.num-retained': 1, 'execution.checkpointing.max-concurrent-checkpoints': 3 });
    const t1 = trigger();
    ackAll(1, chain(file('b1', 1)));
    await t1.result;
    const t2 = trigger(); // base 1, pinned
    const t3 = trigger(); // base 1, pinned
    assert.equal(t3.options.incrementalBase, 1);
    // 2 completes as a new full base; 1 is subsumed. b1 is still pinned by pending checkpoint 3.
    ackAll(2, chain(file('b2', 2)));
    await t2.result;
    assert.deepEqual(storage.discardedShared, []);
    ackAll(3, chain(file('b1', 1), file('d3', 3)));
    await t3.result;
    assert.equal(c.store.latest()!.id, 3, 'its base was pinned: it completes');
    assert.deepEqual(storage.discardedShared, shared('b2'), 'checkpoint 2 subsumed: its base goes, b1 stays with 3');
    // A checkpoint naming a file nobody holds any more (as a subtask that built on an old base would) fails.
    const t4 = trigger();
    ackAll(4, chain(file('b2', 2), file('d4', 4)));
    await assert.rejects(t4.result, /shared state file \/fake\/job\/shared\/b2 it builds on was discarded before it completed/);
  });
});
