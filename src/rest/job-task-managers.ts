import { cpus, freemem, hostname, totalmem } from 'node:os';
import { getHeapStatistics } from 'node:v8';
import type { FastifyInstance } from 'fastify';
import type { JobMaster } from '../coordinator/job-master.ts';
import { localStateView, resourceView, restId } from './task-manager-view-parts.ts';
import type { TaskManagerDetailsView, TaskManagerInfoView, TaskManagersView } from './rest-views.ts';
import { taskManagerId, taskManagerStateRows, type TaskManagerStateRow } from './task-manager-state.ts';

/**
 * GET /taskmanagers of `weir run`: its TaskManagers are threads of its own process (in this thread,
 * or worker threads with --task-managers), not registered processes, so this lists those the job
 * deployed, each with the slots (subtask indices) it runs and its keyed state on local disk. A
 * cluster's JobManager lists its registered processes instead (cluster-views.ts).
 */
export function registerJobTaskManagers(app: FastifyInstance, m: JobMaster): void {
  app.get('/taskmanagers', async (): Promise<TaskManagersView> => ({ taskmanagers: jobTaskManagers(m) }));
  app.get<{ Params: { taskmanagerid: string } }>('/taskmanagers/:taskmanagerid', async (req, reply) => {
    const tm = jobTaskManagers(m).find((t) => t.id === req.params.taskmanagerid || t.resourceId === req.params.taskmanagerid);
    if (!tm) return reply.code(404).send({ errors: [`no TaskManager ${req.params.taskmanagerid} in this weir run (GET /taskmanagers lists them)`] });
    return details(tm);
  });
}

export function jobTaskManagers(m: JobMaster): TaskManagerInfoView[] {
  const slots = new Map<number, Set<number>>();
  for (const t of m.taskStatuses()) {
    let s = slots.get(t.taskManager);
    if (!s) slots.set(t.taskManager, (s = new Set()));
    s.add(t.subtask);
  }
  const state = taskManagerStateRows([m]);
  return [...slots].sort(([a], [b]) => a - b).map(([index, subtasks]) => info(taskManagerId(m, index), subtasks.size, state));
}

function info(id: string, slots: number, state: readonly TaskManagerStateRow[]): TaskManagerInfoView {
  const heap = getHeapStatistics().heap_size_limit;
  return {
    id: restId(id),
    resourceId: id,
    path: `thread://${hostname()}/${process.pid}/${id}`,
    host: 'localhost',
    hostname: hostname(),
    pid: process.pid,
    // Threads of one process exchange records through shared memory, not a data port.
    dataPort: -1,
    jmxPort: -1,
    // A thread TaskManager answers its heartbeats or the job fails over: it answered just now.
    timeSinceLastHeartbeat: Date.now(),
    slotsNumber: slots,
    freeSlots: 0,
    totalResource: resourceView(slots),
    freeResource: resourceView(0),
    hardware: { cpuCores: cpus().length, physicalMemory: totalmem(), freeMemory: freemem(), managedMemory: 0 },
    memoryConfiguration: { taskHeap: heap, totalFlinkMemory: heap, totalProcessMemory: heap },
    blocked: false,
    localState: localStateView(state, id),
  };
}

function details(tm: TaskManagerInfoView): TaskManagerDetailsView {
  const heap = getHeapStatistics();
  return { ...tm, allocatedSlots: [], metrics: { heapUsed: heap.used_heap_size, heapCommitted: heap.total_heap_size, heapMax: heap.heap_size_limit } };
}
