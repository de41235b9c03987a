import { createHash } from 'node:crypto';
import type { ResourceView, TaskManagerInfoView } from './rest-views.ts';
import type { TaskManagerStateRow } from './task-manager-state.ts';

/**
 * Flink's clients expect a TaskManager id of 32 hex characters; weir's resource ids are the
 * names TaskManagers were given (`--id`, or `<host>:<pid>-<index>` for threads of `weir run`):
 * the REST id is the resource id's hash, beside it.
 */
export function restId(resourceId: string): string {
  return /^[0-9a-f]{32}$/.test(resourceId) ? resourceId : createHash('sha256').update(resourceId).digest('hex').slice(0, 32);
}

/** A TaskManager's resources as Flink's views give them: weir counts slots as cores and sets no memory budgets. */
export function resourceView(slots: number): ResourceView {
  return { cpuCores: slots, taskHeapMemory: 0, taskOffHeapMemory: 0, managedMemory: 0, networkMemory: 0, extendedResources: {} };
}

/** A TaskManager's keyed state on local disk, from its row of taskManagerStateRows; null when it keeps none there. */
export function localStateView(rows: readonly TaskManagerStateRow[], id: string): TaskManagerInfoView['localState'] {
  const local = rows.find((r) => r.id === id);
  return local === undefined ? null : { localBytes: local.localBytes, cacheHits: local.cacheHits, cacheMisses: local.cacheMisses, cacheHitRate: local.cacheHitRate ?? null };
}
