import type { WatermarkStrategy } from '../api/watermark-strategy.ts';
import type { JobGraph, JobVertex } from '../graph/job-graph.ts';
import { taskKey, type TaskKey } from '../ids/task-key.ts';
import type { TaskExecutorGateway } from '../rpc/task-executor-gateway.ts';
import { decodeWatermark, encodeWatermark, type WireWatermark } from '../network/wire-watermark.ts';

export interface WatermarkAlignmentDeps {
  readonly graph: JobGraph;
  /** The slot executor that runs a subtask. */
  readonly executorOf: (vertexId: string, subtask: number) => TaskExecutorGateway;
}

interface AlignedSource {
  readonly vertex: JobVertex;
  readonly group: string;
  readonly maxDrift: number;
}

/**
 * Watermark alignment across sources (FLIP-182; Flink's SourceCoordinator does it per source and
 * shares the groups): every source reader of a group reports its watermark each update interval;
 * the group's watermark is the minimum of the reports, and each reader may go up to that plus its
 * source's maxDrift. Readers are told when their allowed maximum changes; a reader that has not
 * reported yet does not count.
 */
export class WatermarkAlignmentCoordinator {
  readonly #d: WatermarkAlignmentDeps;
  readonly #sources: AlignedSource[];
  /** The readers' latest watermarks, by group. */
  readonly #reports = new Map<string, Map<TaskKey, number>>();
  readonly #announced = new Map<TaskKey, number>();
  #attempt = -1;

  constructor(deps: WatermarkAlignmentDeps) {
    this.#d = deps;
    this.#sources = deps.graph.vertices.flatMap((vertex) => {
      const head = vertex.operators[0]!.spec;
      if (head.kind !== 'source') return [];
      const alignment = (head.watermarks as WatermarkStrategy<unknown> | undefined)?.alignment;
      return alignment ? [{ vertex, group: alignment.group, maxDrift: alignment.maxDrift }] : [];
    });
  }

  /** Whether any source is aligned (otherwise no reports come). */
  get active(): boolean {
    return this.#sources.length > 0;
  }

  /** A new attempt: reports of the old one no longer count. */
  reset(attempt: number): void {
    this.#attempt = attempt;
    this.#reports.clear();
    this.#announced.clear();
  }

  report(vertexId: string, subtask: number, group: string, watermark: WireWatermark): void {
    let reports = this.#reports.get(group);
    if (!reports) this.#reports.set(group, (reports = new Map()));
    reports.set(taskKey(vertexId, subtask), decodeWatermark(watermark));
    let min = Infinity;
    for (const wm of reports.values()) if (wm < min) min = wm;
    for (const s of this.#sources) {
      if (s.group !== group) continue;
      // Everything in the group idle or finished (Infinity): no one is held back.
      const allowed = min === Infinity ? Infinity : min + s.maxDrift;
      for (let i = 0; i < s.vertex.parallelism; i++) {
        const key = taskKey(s.vertex.id, i);
        if (this.#announced.get(key) === allowed) continue;
        this.#announced.set(key, allowed);
        this.#d.executorOf(s.vertex.id, i).updateWatermarkAlignment({ attempt: this.#attempt, vertexId: s.vertex.id, subtask: i, maxAllowedWatermark: encodeWatermark(allowed) });
      }
    }
  }
}
