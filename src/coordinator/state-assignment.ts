import type { CheckpointMetadata, OperatorStateMetadata } from '../checkpoint/checkpoint-metadata.ts';
import { parseChannelStateKey, toChannelStateKey, type ChannelStateKey } from '../checkpoint/channel-state-key.ts';
import { isAbsolute, join } from 'node:path';
import type { JobGraph, JobVertex } from '../graph/job-graph.ts';
import { taskKey, type TaskKey } from '../ids/task-key.ts';
import type { ChannelStateHandle, KeyedStateHandle, OperatorRestoreState, OperatorStateMap, RestoredChannelState, TaskRestoreState } from '../checkpoint/state-handles.ts';
import { keyGroupRangeForSubtask } from '../state/key-group.ts';
import { RestoreError } from './restore-error.ts';
import { keyedHandleFiles } from '../checkpoint/incremental/shared-state-files.ts';

/**
 * Hands a snapshot's state to the subtasks of a (possibly rescaled, possibly changed) job:
 * operators are matched by uid; keyed state follows its key groups; operator list state is
 * split evenly or given whole to everyone (union), as Flink redistributes it.
 */
export function assignState(
  metadata: CheckpointMetadata,
  directory: string,
  jobGraph: JobGraph,
  allowNonRestoredState: boolean,
): Map<TaskKey, TaskRestoreState> {
  const byUid = new Map(metadata.operators.map((o) => [o.uid, o]));
  const unmatched: Array<{ uid: string; name: string; states: string[] }> = [];
  const jobUids = new Set(jobGraph.vertices.flatMap((v) => v.operators.map((o) => o.uid)));
  for (const op of metadata.operators) {
    if (!jobUids.has(op.uid) && hasState(op)) unmatched.push({ uid: op.uid, name: op.name, states: stateNames(op) });
  }
  if (unmatched.length > 0 && !allowNonRestoredState) {
    const list = unmatched.map((u) => `uid '${u.uid}' ('${u.name}', states: ${u.states.join(', ') || 'none'})`).join('; ');
    throw new RestoreError(
      directory,
      `state of ${unmatched.length} operator${unmatched.length === 1 ? '' : 's'} has no operator in the job: ${list}. Use --allow-non-restored-state to drop it`,
      unmatched,
    );
  }

  const result = new Map<TaskKey, TaskRestoreState>();
  for (const vertex of jobGraph.vertices) {
    for (let subtask = 0; subtask < vertex.parallelism; subtask++) {
      const operators: Record<string, OperatorRestoreState> = {};
      for (const op of vertex.operators) {
        const stored = byUid.get(op.uid);
        if (!stored) continue;
        const keyed = stored.subtasks.some((s) => s.keyed);
        if (keyed && stored.maxParallelism !== vertex.maxParallelism) {
          throw new RestoreError(
            directory,
            `operator uid '${op.uid}' has keyed state for maxParallelism ${stored.maxParallelism}, the job now has maxParallelism ${vertex.maxParallelism}; maxParallelism cannot change once state exists`,
          );
        }
        operators[op.uid] = {
          keyed: keyedHandlesFor(stored, subtask, vertex.parallelism, vertex.maxParallelism),
          operator: operatorStateFor(stored, subtask, vertex.parallelism),
        };
      }
      const channels = channelStateFor(metadata, directory, jobGraph, vertex, subtask, byUid);
      result.set(taskKey(vertex.id, subtask), { checkpointId: metadata.checkpointId, directory, operators, channels });
    }
  }
  return result;
}

/**
 * The in-flight data of an unaligned checkpoint for one subtask. It is tied to the channels it
 * was taken from: the job's connections must be the same; with another parallelism, keyed and
 * rebalanced edges are redistributed, forward and broadcast edges cannot be.
 */
function channelStateFor(
  metadata: CheckpointMetadata,
  directory: string,
  jobGraph: JobGraph,
  vertex: JobVertex,
  subtask: number,
  byUid: ReadonlyMap<string, OperatorStateMetadata>,
): RestoredChannelState | null {
  const head = byUid.get(vertex.operators[0]!.uid);
  if (!head || !head.subtasks.some((s) => hasChannels(s.inputChannels) || hasChannels(s.outputChannels))) return null;
  const parallelismOf = (v: JobVertex) => byUid.get(v.operators[0]!.uid)?.parallelism;
  const edges = [...vertex.inputs, ...vertex.outputs];
  const rescaled = head.parallelism !== vertex.parallelism || edges.some((e) => parallelismOf(e.source) !== e.source.parallelism || parallelismOf(e.target) !== e.target.parallelism);
  const notOurs = (cause?: unknown) =>
    new RestoreError(
      directory,
      `the in-flight data of unaligned checkpoint ${metadata.checkpointId} belongs to channels the job no longer has (vertex '${vertex.name}'); restore from a savepoint, which is always aligned`,
      [],
      cause === undefined ? undefined : { cause },
    );
  const pick = (entries: Record<string, ChannelStateHandle> | undefined) => Object.entries(entries ?? {}).map(([text, handle]) => ({ key: storedKey(text, notOurs), handle }));
  const sources = rescaled ? [...head.subtasks].sort((a, b) => a.subtask - b.subtask) : head.subtasks.filter((s) => s.subtask === subtask);
  const inputs = sources.flatMap((s) => pick(s.inputChannels));
  const outputs = sources.flatMap((s) => pick(s.outputChannels));
  for (const { key } of [...inputs, ...outputs]) {
    const { edgeId } = parseChannelStateKey(key);
    const edge = jobGraph.edges.find((e) => e.id === edgeId);
    const recorded = metadata.edges?.find((e) => e.id === edgeId);
    if (!edge || !recorded || recorded.source !== edge.source.id || recorded.target !== edge.target.id) throw notOurs();
    if (rescaled && (edge.partitioner.kind === 'forward' || edge.partitioner.kind === 'broadcast')) {
      throw new RestoreError(
        directory,
        `unaligned checkpoint ${metadata.checkpointId} has in-flight data on a ${edge.partitioner.kind} connection into '${edge.target.name}', which cannot be redistributed to another parallelism; restore at the old parallelism, or from a savepoint`,
      );
    }
  }
  const resolve = (h: ChannelStateHandle) => ({ ...h, file: isAbsolute(h.file) ? h.file : join(directory, h.file) });
  // After a rescale every subtask reads all input channel state and keeps what is now its own,
  // but persisted output is sent again by whoever replays it (the writer picks the channel anew):
  // each old output channel goes to one subtask only, so its records go out once and in order.
  const mine = rescaled ? outputs.filter((_, i) => i % vertex.parallelism === subtask) : outputs;
  return {
    rescaled,
    inputs: inputs.map((i) => ({ key: i.key, handle: resolve(i.handle) })),
    outputs: mine.map((o) => ({ key: o.key, handle: resolve(o.handle) })),
  };
}

/** A channel state key as `_metadata` holds it: one that is not names no channel of the job. */
function storedKey(text: string, notOurs: (cause: unknown) => RestoreError): ChannelStateKey {
  try {
    return toChannelStateKey(text);
  } catch (e) {
    throw notOurs(e);
  }
}

function hasChannels(entries: Record<string, ChannelStateHandle> | undefined): boolean {
  return entries !== undefined && Object.keys(entries).length > 0;
}

function hasState(op: OperatorStateMetadata): boolean {
  return op.subtasks.some((s) => (s.keyed && keyedHandleFiles(s.keyed).some((h) => h.entries > 0)) || Object.values(s.operator).some((e) => e.values.length > 0));
}

function stateNames(op: OperatorStateMetadata): string[] {
  const names = new Set<string>();
  for (const s of op.subtasks) {
    for (const h of s.keyed ? keyedHandleFiles(s.keyed) : []) for (const st of h.states) if (st.kind !== 'removed') names.add(st.name);
    for (const name of Object.keys(s.operator)) names.add(name);
  }
  return [...names];
}

function keyedHandlesFor(stored: OperatorStateMetadata, subtask: number, parallelism: number, maxParallelism: number): KeyedStateHandle[] {
  const range = keyGroupRangeForSubtask(subtask, parallelism, maxParallelism);
  return stored.subtasks
    .map((s) => s.keyed)
    // An incremental handle's deltas may hold key groups its base has none of.
    .filter((h): h is KeyedStateHandle => h !== null && keyedHandleFiles(h).some((f) => f.keyGroups.some((g) => g.keyGroup >= range.start && g.keyGroup <= range.end)));
}

function operatorStateFor(stored: OperatorStateMetadata, subtask: number, parallelism: number): OperatorStateMap {
  const names = new Set(stored.subtasks.flatMap((s) => Object.keys(s.operator)));
  const out: OperatorStateMap = {};
  const ordered = [...stored.subtasks].sort((a, b) => a.subtask - b.subtask);
  for (const name of names) {
    const { mode, serializer } = ordered.find((s) => s.operator[name])!.operator[name]!;
    // A declared state's values are its codec's bytes: they move as they are, with what wrote them.
    const written = serializer ? { serializer } : {};
    if (mode === 'broadcast') {
      // Every subtask wrote the same copy: each new subtask takes one, also the ones a rescale adds.
      const copy = ordered.find((s) => s.subtask === subtask % stored.parallelism) ?? ordered[0]!;
      out[name] = { mode, values: [...(copy.operator[name]?.values ?? [])], ...written };
    } else if (mode === 'union') {
      out[name] = { mode, values: ordered.flatMap((s) => s.operator[name]?.values ?? []), ...written };
    } else if (stored.parallelism === parallelism) {
      out[name] = { mode, values: [...(ordered.find((s) => s.subtask === subtask)?.operator[name]?.values ?? [])], ...written };
    } else {
      const all = ordered.flatMap((s) => s.operator[name]?.values ?? []);
      const start = Math.floor((subtask * all.length) / parallelism);
      const end = Math.floor(((subtask + 1) * all.length) / parallelism);
      out[name] = { mode, values: all.slice(start, end), ...written };
    }
  }
  return out;
}
