import type { PendingSubtask } from '../checkpoint/checkpoint-failure-reason.ts';
import { formatDuration } from '../config/duration.ts';
import type { JobGraph } from '../graph/job-graph.ts';
import { parseTaskKey, type TaskKey } from '../ids/task-key.ts';
import { describeActivity } from '../network/task-activity.ts';
import type { TaskDescriptions } from './checkpoint-coordinator-deps.ts';

export interface ExpiredCheckpoint {
  readonly id: number;
  /** The subtasks that had not acknowledged. */
  readonly missing: readonly TaskKey[];
  /** How many subtasks acknowledge a checkpoint. */
  readonly expected: number;
  readonly timeout: number;
  readonly now: number;
}

/** Why a checkpoint expired: what each subtask that had not acknowledged was doing, as a sentence and as facts. */
export function expiredCheckpointReport(cp: ExpiredCheckpoint, graph: JobGraph, described: TaskDescriptions): { pending: PendingSubtask[]; message: string } {
  const pending: PendingSubtask[] = cp.missing.map((key) => {
    const { vertexId, subtask } = parseTaskKey(key);
    const vertex = graph.vertices.find((v) => v.id === vertexId);
    const d = described.tasks.find((t) => t.vertexId === vertexId && t.subtask === subtask);
    return { vertex: vertex?.name ?? vertexId, subtask, parallelism: vertex?.parallelism ?? 0, isSource: vertex?.isSource ?? false, report: d, silent: d?.silent ?? true };
  });
  const lines = pending.map((s) => {
    const doing = s.report ? describeActivity(s.report, cp.now, s.silent) : 'no answer from its TaskManager (its thread may be blocked inside a synchronous call)';
    return `'${s.vertex}' subtask ${s.subtask + 1}/${s.parallelism || '?'}: ${doing}`;
  });
  const silent = described.silent;
  const silentNote = silent.length > 0 ? `; TaskManager ${silent.join(', ')} did not answer` : '';
  const message = `checkpoint ${cp.id} expired after ${formatDuration(cp.timeout)} before completing: ${cp.missing.length} of ${cp.expected} subtasks had not acknowledged — ${lines.join('; ')}${silentNote}`;
  return { pending, message };
}
