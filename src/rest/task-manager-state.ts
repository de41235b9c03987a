import { hostname } from 'node:os';
import type { JobMaster } from '../coordinator/job-master.ts';
import { operatorRows, reportedTaskRows } from './metric-rows.ts';

/** The local state of one TaskManager: the keyed operators on the lmdb backend of every job's subtasks that run there, added up. */
export interface TaskManagerStateRow {
  /** A cluster TaskManager's resource id; `<host>:<pid>-<index>` for a job's TaskManagers that are threads of this process (Flink's tm_id). */
  readonly id: string;
  /** Bytes the local stores take on disk, in the TaskManager's state working directory. */
  readonly localBytes: number;
  /** State accesses the in-memory caches answered, and those that went to the stores, since the stores opened. */
  readonly cacheHits: number;
  readonly cacheMisses: number;
  /** cacheHits of all accesses; undefined before any. */
  readonly cacheHitRate: number | undefined;
}

/** The id of a job's TaskManager `index` in every face (Flink's tm_id): a cluster TaskManager's resource id, else `<host>:<pid>-<index>` (a thread of this process). */
export function taskManagerId(m: JobMaster, index: number): string {
  return m.taskManagerIdOf(index) ?? `${hostname()}:${process.pid}-${index}`;
}

/**
 * Per TaskManager, from the figures its subtasks last reported (task-metrics.ts): a TaskManager
 * whose subtasks keep no state on local disk (the heap backend) has no row.
 */
export function taskManagerStateRows(jobs: readonly JobMaster[]): TaskManagerStateRow[] {
  const rows = new Map<string, { localBytes: number; cacheHits: number; cacheMisses: number }>();
  for (const m of jobs) {
    const statuses = m.taskStatuses();
    for (const task of reportedTaskRows(m)) {
      const index = statuses.find((s) => s.vertexId === task.vertexId && s.subtask === task.subtask)?.taskManager ?? 0;
      for (const { o } of operatorRows(task)) {
        if (o.state === undefined) continue;
        const id = taskManagerId(m, index);
        let row = rows.get(id);
        if (row === undefined) rows.set(id, (row = { localBytes: 0, cacheHits: 0, cacheMisses: 0 }));
        row.localBytes += o.state.localBytes;
        row.cacheHits += o.state.cacheHits;
        row.cacheMisses += o.state.cacheMisses;
      }
    }
  }
  return [...rows].map(([id, r]) => {
    const accesses = r.cacheHits + r.cacheMisses;
    return { id, ...r, cacheHitRate: accesses === 0 ? undefined : r.cacheHits / accesses };
  });
}
