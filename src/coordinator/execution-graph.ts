import type { JobGraph, JobVertex } from '../graph/job-graph.ts';
import { taskKey, type TaskKey } from '../ids/task-key.ts';
import type { TaskMetrics } from '../rpc/job-master-gateway.ts';
import type { TaskStatus } from '../network/task-status.ts';
import type { ActivityReport } from '../network/task-activity.ts';
import { TaskRateWindow, type TaskRates } from './task-rates.ts';

export interface ExecutionEntry {
  readonly vertex: JobVertex;
  readonly subtask: number;
  /** The TaskManager it is deployed on. */
  readonly taskManager: number;
  status: TaskStatus;
}

/**
 * The subtasks of the current attempt (Flink's ExecutionGraph, in the part weir needs): where
 * each runs, its status, its latest figures, and the positions sources last reported (an
 * at-most-once restart goes on from them).
 */
export class ExecutionGraph {
  readonly graph: JobGraph;
  readonly #entries = new Map<TaskKey, ExecutionEntry>();
  readonly #metrics = new Map<TaskKey, TaskMetrics>();
  readonly #rates = new Map<TaskKey, TaskRateWindow>();
  readonly positions = new Map<TaskKey, unknown[]>();

  constructor(graph: JobGraph) {
    this.graph = graph;
  }

  /** Splits assigned to a subtask that had stopped: they join its positions (an at-most-once restart reads them). */
  addUndelivered(vertexId: string, subtask: number, splits: readonly unknown[]): void {
    const key = taskKey(vertexId, subtask);
    this.positions.set(key, [...(this.positions.get(key) ?? []), ...splits]);
  }

  /** A new attempt: its subtasks, all initializing, on the TaskManagers they are placed on. */
  reset(placement: ReadonlyMap<TaskKey, number>): void {
    this.#entries.clear();
    this.#metrics.clear();
    this.#rates.clear();
    for (const vertex of this.graph.vertices) {
      for (let s = 0; s < vertex.parallelism; s++) {
        const key = taskKey(vertex.id, s);
        this.#entries.set(key, { vertex, subtask: s, taskManager: placement.get(key)!, status: 'initializing' });
      }
    }
  }

  get size(): number {
    return this.#entries.size;
  }

  entries(): IterableIterator<ExecutionEntry> {
    return this.#entries.values();
  }

  entry(vertexId: string, subtask: number): ExecutionEntry | undefined {
    return this.#entries.get(taskKey(vertexId, subtask));
  }

  every(predicate: (status: TaskStatus) => boolean): boolean {
    if (this.#entries.size === 0) return false;
    for (const e of this.#entries.values()) if (!predicate(e.status)) return false;
    return true;
  }

  recordMetrics(tasks: readonly TaskMetrics[]): void {
    for (const t of tasks) {
      const key = taskKey(t.vertexId, t.subtask);
      this.#metrics.set(key, t);
      let window = this.#rates.get(key);
      if (!window) this.#rates.set(key, (window = new TaskRateWindow()));
      window.add(t);
    }
  }

  /** Per-second figures of a subtask of this attempt, from its reports; undefined before its first. */
  ratesOf(vertexId: string, subtask: number): TaskRates | undefined {
    return this.#rates.get(taskKey(vertexId, subtask))?.rates();
  }

  metrics(): readonly TaskMetrics[] {
    return [...this.#metrics.values()];
  }

  metricsOf(vertexId: string, subtask: number): TaskMetrics | undefined {
    return this.#metrics.get(taskKey(vertexId, subtask));
  }

  /** The last reports of the subtasks on one TaskManager. */
  reportsOn(taskManager: number): Array<[ExecutionEntry, ActivityReport | undefined]> {
    return [...this.#entries.values()].filter((e) => e.taskManager === taskManager).map((e) => [e, this.#metrics.get(taskKey(e.vertex.id, e.subtask))]);
  }

  /** Records read by the sources and records that reached the sinks, in this attempt. */
  recordCounts(): { readIn: number; writtenOut: number } {
    let readIn = 0;
    let writtenOut = 0;
    for (const m of this.#metrics.values()) {
      const vertex = this.#entries.get(taskKey(m.vertexId, m.subtask))?.vertex;
      if (!vertex) continue;
      if (vertex.isSource) readIn += m.recordsIn;
      if (vertex.operators.some((o) => o.spec.kind === 'sink')) writtenOut += m.recordsIn;
    }
    return { readIn, writtenOut };
  }
}
