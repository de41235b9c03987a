// Restoring a snapshot into a job of another parallelism, on metadata built by hand: keyed state
// follows its key groups, split list state is shared out evenly, union list state goes to every
// subtask; state without an operator, and a changed maxParallelism, are refused.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob } from '../../src/api/define-job.ts';
import { METADATA_VERSION, type CheckpointMetadata, type OperatorStateMetadata, type SubtaskStateMetadata } from '../../src/checkpoint/checkpoint-metadata.ts';
import type { KeyedStateHandle } from '../../src/checkpoint/state-handles.ts';
import { RestoreError } from '../../src/coordinator/restore-error.ts';
import { assignState } from '../../src/coordinator/state-assignment.ts';
import type { JobGraph, JobVertex } from '../../src/graph/job-graph.ts';
import { taskKey } from '../../src/ids/task-key.ts';
import { keyGroupRangeForSubtask, type KeyGroupRange } from '../../src/state/key-group.ts';
import { CollectionSource } from '../../src/connectors/collection/index.ts';
import { DiscardSink } from '../fixtures/helpers.ts';

const MAX_PARALLELISM = 8;
const DIR = '/fake/job/chk-5';
const PARALLELISMS = [1, 2, 3, 4];

/** Numbers (uid src) -> keyBy -> Sum (uid sum) -> Sink (uid sink), every operator at `parallelism`. */
function plan(parallelism: number, maxParallelism = MAX_PARALLELISM): Promise<JobGraph> {
  return defineJob((env) => {
    env.setParallelism(parallelism);
    env.setMaxParallelism(maxParallelism);
    env
      .fromSource(new CollectionSource([1, 2, 3]), { uid: 'src', name: 'Numbers' })
      .keyBy((x) => x % 5)
      .reduce((a, b) => a + b, { uid: 'sum', name: 'Sum' })
      .sinkTo(new DiscardSink<number>(), { uid: 'sink', name: 'Sink' });
  })
    .plan([])
    .then((p) => p.jobGraph);
}

const graphs = new Map<number, JobGraph>();
before(async () => {
  for (const p of PARALLELISMS) graphs.set(p, await plan(p));
});

const vertexOf = (graph: JobGraph, uid: string): JobVertex => graph.vertices.find((v) => v.operators.some((o) => o.uid === uid))!;

function keyedHandle(file: string, range: KeyGroupRange): KeyedStateHandle {
  const keyGroups = [];
  for (let g = range.start; g <= range.end; g++) keyGroups.push({ keyGroup: g, offset: (g - range.start) * 10, length: 10 });
  return { file, keyGroups, states: [{ name: 'sum', kind: 'value', serializer: 'json', version: 1 }], entries: keyGroups.length, bytes: keyGroups.length * 10, crc32: 0 };
}

/** The values of old subtask `s`'s split list state: a different number per subtask (s + 2). */
const splitValues = (s: number) => Array.from({ length: s + 2 }, (_, i) => `split-${s}.${i}`);

function operatorMetadata(graph: JobGraph, uid: string, name: string, parallelism: number, subtask: (s: number) => Omit<SubtaskStateMetadata, 'subtask'>, maxParallelism = MAX_PARALLELISM): OperatorStateMetadata {
  const vertex = vertexOf(graph, uid);
  const op = vertex.operators.find((o) => o.uid === uid)!;
  return { uid, operatorId: op.operatorId, name, vertexId: vertex.id, parallelism, maxParallelism, subtasks: Array.from({ length: parallelism }, (_, s) => ({ subtask: s, ...subtask(s) })) };
}

/** The snapshot a job at `parallelism` would have taken: keyed state in Sum, split and union list state in Numbers. */
function snapshot(parallelism: number, extra: OperatorStateMetadata[] = []): CheckpointMetadata {
  const graph = graphs.get(parallelism)!;
  return {
    formatVersion: METADATA_VERSION,
    jobId: 'job',
    checkpointId: 5,
    type: 'checkpoint',
    unaligned: false,
    triggeredAt: 1000,
    completedAt: 1100,
    operators: [
      operatorMetadata(graph, 'src', 'Numbers', parallelism, (s) => ({
        keyed: null,
        operator: { splits: { mode: 'split', values: splitValues(s) }, offsets: { mode: 'union', values: [`offset-${s}`] } },
      })),
      operatorMetadata(graph, 'sum', 'Sum', parallelism, (s) => ({ keyed: keyedHandle(`sum-${s}`, keyGroupRangeForSubtask(s, parallelism, MAX_PARALLELISM)), operator: {} })),
      operatorMetadata(graph, 'sink', 'Sink', parallelism, () => ({ keyed: null, operator: {} })),
      ...extra,
    ],
    edges: graph.edges.map((e) => ({ id: e.id, source: e.source.id, target: e.target.id, partitioner: e.partitioner.kind })),
  };
}

const overlaps = (a: KeyGroupRange, b: KeyGroupRange) => a.start <= b.end && b.start <= a.end;

describe('rescaling from every parallelism 1..4 to every parallelism 1..4', () => {
  for (const from of PARALLELISMS) {
    for (const to of PARALLELISMS) {
      test(`${from} -> ${to}`, () => {
        const graph = graphs.get(to)!;
        const assigned = assignState(snapshot(from), DIR, graph, false);
        assert.equal(assigned.size, graph.vertices.length * to, 'every subtask of every vertex gets a restore state');
        for (const v of graph.vertices) {
          for (let t = 0; t < to; t++) {
            const r = assigned.get(taskKey(v.id, t));
            assert.ok(r, `${v.name} ${t}`);
            assert.equal(r.checkpointId, 5);
            assert.equal(r.directory, DIR);
            assert.equal(r.channels, null, 'an aligned snapshot has no in-flight data');
          }
        }

        // Keyed state: subtask t gets exactly the old handles whose key groups meet its range,
        // and between them every key group lands in exactly one new subtask.
        const sum = vertexOf(graph, 'sum');
        const owners = new Map<number, number[]>();
        for (let t = 0; t < to; t++) {
          const range = keyGroupRangeForSubtask(t, to, MAX_PARALLELISM);
          const handles = assigned.get(taskKey(sum.id, t))!.operators.sum!.keyed;
          const expected = PARALLELISMS.slice(0, from)
            .map((_, s) => s)
            .filter((s) => overlaps(keyGroupRangeForSubtask(s, from, MAX_PARALLELISM), range))
            .map((s) => `sum-${s}`);
          assert.deepEqual(handles.map((h) => h.file).sort(), expected, `handles of Sum ${t}`);
          for (const h of handles) {
            for (const { keyGroup } of h.keyGroups) if (keyGroup >= range.start && keyGroup <= range.end) owners.set(keyGroup, [...(owners.get(keyGroup) ?? []), t]);
          }
          assert.deepEqual(assigned.get(taskKey(sum.id, t))!.operators.sum!.operator, {});
        }
        for (let g = 0; g < MAX_PARALLELISM; g++) assert.equal(owners.get(g)?.length, 1, `key group ${g} is assigned once (owners ${owners.get(g)})`);

        // Split list state: every value to exactly one subtask; rescaled, shares differ by at most one.
        const src = vertexOf(graph, 'src');
        const all = Array.from({ length: from }, (_, s) => splitValues(s)).flat();
        const shares = Array.from({ length: to }, (_, t) => assigned.get(taskKey(src.id, t))!.operators.src!.operator.splits!);
        for (const share of shares) assert.equal(share.mode, 'split');
        assert.deepEqual(shares.flatMap((s) => s.values), all, 'every value once, in order');
        if (from === to) {
          shares.forEach((s, t) => assert.deepEqual(s.values, splitValues(t), `unchanged parallelism: subtask ${t} keeps its own`));
        } else {
          const sizes = shares.map((s) => s.values.length);
          assert.ok(Math.max(...sizes) - Math.min(...sizes) <= 1, `even shares: ${sizes}`);
        }

        // Union list state: every subtask gets all of it.
        const offsets = Array.from({ length: from }, (_, s) => `offset-${s}`);
        for (let t = 0; t < to; t++) {
          const restored = assigned.get(taskKey(src.id, t))!.operators.src!;
          assert.deepEqual(restored.operator.offsets, { mode: 'union', values: offsets });
          assert.deepEqual(restored.keyed, []);
        }

        const sink = vertexOf(graph, 'sink');
        for (let t = 0; t < to; t++) assert.deepEqual(assigned.get(taskKey(sink.id, t))!.operators.sink, { keyed: [], operator: {} });
      });
    }
  }
});

/** A stateful operator the job no longer has: keyed state and a list state. */
function removed(uid: string, entries: number, values: unknown[]): OperatorStateMetadata {
  return {
    uid,
    operatorId: `op-${uid}`,
    name: 'Dedup',
    vertexId: `vertex-${uid}`,
    parallelism: 2,
    maxParallelism: MAX_PARALLELISM,
    subtasks: [
      { subtask: 0, keyed: { ...keyedHandle(`${uid}-0`, { start: 0, end: 3 }), states: [{ name: 'seen', kind: 'value', serializer: 'json', version: 1 }], entries }, operator: { buffer: { mode: 'split', values } } },
      { subtask: 1, keyed: null, operator: {} },
    ],
  };
}

test('state of an operator the job no longer has is refused with a RestoreError naming its uid and states', () => {
  let caught: unknown;
  try {
    assignState(snapshot(2, [removed('dedup', 3, ['x'])]), DIR, graphs.get(2)!, false);
  } catch (e) {
    caught = e;
  }
  assert.ok(caught instanceof RestoreError, `expected a RestoreError, got ${String(caught)}`);
  assert.equal(caught.path, DIR);
  assert.deepEqual(caught.unmatched, [{ uid: 'dedup', name: 'Dedup', states: ['seen', 'buffer'] }]);
  assert.match(caught.message, /cannot restore from \/fake\/job\/chk-5/);
  assert.match(caught.message, /uid 'dedup' \('Dedup', states: seen, buffer\)/);
  assert.match(caught.message, /--allow-non-restored-state/);
});

test('allowNonRestoredState drops the state of a removed operator and restores the rest', () => {
  const graph = graphs.get(2)!;
  const assigned = assignState(snapshot(2, [removed('dedup', 3, ['x'])]), DIR, graph, true);
  assert.equal(assigned.size, graph.vertices.length * 2);
  for (const r of assigned.values()) assert.equal(r.operators.dedup, undefined);
  const sum = vertexOf(graph, 'sum');
  assert.deepEqual(assigned.get(taskKey(sum.id, 1))!.operators.sum!.keyed.map((h) => h.file), ['sum-1']);
});

test('an operator the job no longer has is not refused when it holds no state', () => {
  assert.doesNotThrow(() => assignState(snapshot(2, [removed('dedup', 0, [])]), DIR, graphs.get(2)!, false));
  // Keyed entries alone, or list values alone, are state.
  assert.throws(() => assignState(snapshot(2, [removed('dedup', 1, [])]), DIR, graphs.get(2)!, false), RestoreError);
  assert.throws(() => assignState(snapshot(2, [removed('dedup', 0, ['x'])]), DIR, graphs.get(2)!, false), RestoreError);
});

test('keyed state cannot be restored into another maxParallelism', async () => {
  const wider = await plan(2, 16);
  assert.throws(
    () => assignState(snapshot(2), DIR, wider, false),
    (e: unknown) =>
      e instanceof RestoreError &&
      e.path === DIR &&
      e.message.includes("operator uid 'sum' has keyed state for maxParallelism 8, the job now has maxParallelism 16") &&
      e.message.includes('cannot change once state exists'),
  );
});

test('list state alone does not tie the operator to its maxParallelism', async () => {
  const wider = await plan(2, 16);
  const m = snapshot(2);
  const onlyListState: CheckpointMetadata = { ...m, operators: m.operators.filter((o) => o.uid !== 'sum') };
  const assigned = assignState(onlyListState, DIR, wider, false);
  const src = vertexOf(wider, 'src');
  assert.deepEqual(assigned.get(taskKey(src.id, 0))!.operators.src!.operator.splits!.values, splitValues(0));
});
