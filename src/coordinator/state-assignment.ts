import type { CheckpointMetadata, OperatorStateMetadata } from '../checkpoint/checkpoint-metadata.ts';
import type { JobGraph } from '../graph/job-graph.ts';
import type { KeyedStateHandle, OperatorRestoreState, OperatorStateMap, TaskRestoreState } from '../network/control-messages.ts';
import { keyGroupRangeForSubtask } from '../state/key-group.ts';
import { RestoreError } from './restore-error.ts';

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
): Map<string, TaskRestoreState> {
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

  const result = new Map<string, TaskRestoreState>();
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
      result.set(`${vertex.id}:${subtask}`, { checkpointId: metadata.checkpointId, directory, operators, inputChannels: {}, outputChannels: {} });
    }
  }
  return result;
}

function hasState(op: OperatorStateMetadata): boolean {
  return op.subtasks.some((s) => (s.keyed && s.keyed.entries > 0) || Object.values(s.operator).some((e) => e.values.length > 0));
}

function stateNames(op: OperatorStateMetadata): string[] {
  const names = new Set<string>();
  for (const s of op.subtasks) {
    for (const st of s.keyed?.states ?? []) names.add(st.name);
    for (const name of Object.keys(s.operator)) names.add(name);
  }
  return [...names];
}

function keyedHandlesFor(stored: OperatorStateMetadata, subtask: number, parallelism: number, maxParallelism: number): KeyedStateHandle[] {
  const range = keyGroupRangeForSubtask(subtask, parallelism, maxParallelism);
  return stored.subtasks
    .map((s) => s.keyed)
    .filter((h): h is KeyedStateHandle => h !== null && h.keyGroups.some((g) => g.keyGroup >= range.start && g.keyGroup <= range.end));
}

function operatorStateFor(stored: OperatorStateMetadata, subtask: number, parallelism: number): OperatorStateMap {
  const names = new Set(stored.subtasks.flatMap((s) => Object.keys(s.operator)));
  const out: OperatorStateMap = {};
  const ordered = [...stored.subtasks].sort((a, b) => a.subtask - b.subtask);
  for (const name of names) {
    const mode = ordered.find((s) => s.operator[name])!.operator[name]!.mode;
    if (mode === 'union') {
      out[name] = { mode, values: ordered.flatMap((s) => s.operator[name]?.values ?? []) };
    } else if (stored.parallelism === parallelism) {
      out[name] = { mode, values: [...(ordered.find((s) => s.subtask === subtask)?.operator[name]?.values ?? [])] };
    } else {
      const all = ordered.flatMap((s) => s.operator[name]?.values ?? []);
      const start = Math.floor((subtask * all.length) / parallelism);
      const end = Math.floor(((subtask + 1) * all.length) / parallelism);
      out[name] = { mode, values: all.slice(start, end) };
    }
  }
  return out;
}
