import type { TaskRestoreState } from '../checkpoint/state-handles.ts';
import { consumersOf } from '../graph/edge-connections.ts';
import type { JobGraph } from '../graph/job-graph.ts';
import { taskKey, type TaskKey } from '../ids/task-key.ts';
import type { RemoteChannelEndpoint, TaskDeployment } from '../rpc/task-executor-gateway.ts';
import { Doorbell } from '../network/doorbell.ts';
import { SegmentRing, type RingShape } from '../network/segment-ring.ts';
import type { PlannedFailure } from './fault-injector.ts';
import type { SlotExecutorPool } from './slot-executor-pool.ts';

/** What one attempt deploys: every subtask's splits and restored state, and a failure to arm. */
export interface AttemptPlan {
  readonly attempt: number;
  readonly jobId: string;
  /** Source splits by vertex id, one list per subtask (empty for sources with an enumerator). */
  readonly splits: ReadonlyMap<string, unknown[][]>;
  readonly restore: ReadonlyMap<TaskKey, TaskRestoreState> | undefined;
  readonly armed: PlannedFailure | undefined;
}

/**
 * Places subtasks on TaskManagers and deploys an attempt (Flink's ExecutionDeployer): subtask i
 * of every vertex runs on TaskManager i mod n, so forward-connected subtasks share a thread, and
 * every channel between two TaskManagers gets a shared-memory ring of its own, new for each attempt
 * (TaskManagers in other processes make theirs: see cluster/slot-channels.ts).
 */
export class ExecutionDeployer {
  readonly #graph: JobGraph;
  readonly #pool: SlotExecutorPool;
  readonly #ring: RingShape;

  constructor(graph: JobGraph, pool: SlotExecutorPool, ring: RingShape) {
    this.#graph = graph;
    this.#pool = pool;
    this.#ring = ring;
  }

  /** Which TaskManager runs a subtask. */
  taskManagerOf(subtask: number): number {
    return subtask % this.#pool.size;
  }

  /** The placement of every subtask. */
  placement(): Map<TaskKey, number> {
    const m = new Map<TaskKey, number>();
    for (const v of this.#graph.vertices) for (let s = 0; s < v.parallelism; s++) m.set(taskKey(v.id, s), this.taskManagerOf(s));
    return m;
  }

  deploy(plan: AttemptPlan): void {
    const n = this.#pool.size;
    const perTm: TaskDeployment[][] = Array.from({ length: n }, () => []);
    for (const vertex of this.#graph.vertices) {
      const splits = plan.splits.get(vertex.id);
      for (let s = 0; s < vertex.parallelism; s++) {
        const armed = plan.armed && plan.armed.vertexId === vertex.id && plan.armed.subtask === s ? plan.armed.afterRecords : undefined;
        perTm[this.taskManagerOf(s)]!.push({
          vertexId: vertex.id,
          subtask: s,
          splits: splits?.[s] ?? [],
          restore: plan.restore?.get(taskKey(vertex.id, s)) ?? null,
          ...(armed !== undefined ? { failAfterRecords: armed } : {}),
        });
      }
    }
    // One doorbell per TaskManager thread and attempt: the writers of all its input rings ring it.
    const doorbells = this.#pool.sharesMemory ? Array.from({ length: n }, () => Doorbell.create().buffer) : undefined;
    const remote = this.#remoteChannels(doorbells);
    const placement = Object.fromEntries(this.#graph.vertices.map((v) => [v.id, Array.from({ length: v.parallelism }, (_, s) => this.taskManagerOf(s))]));
    for (let i = 0; i < n; i++) {
      this.#pool.executor(i).deploy({ jobId: plan.jobId, attempt: plan.attempt, fingerprint: this.#graph.fingerprint, tasks: perTm[i]!, remoteChannels: remote[i]!, placement });
    }
  }

  /** A ring for every channel whose producer and consumer run on different TaskManagers. */
  #remoteChannels(doorbells: SharedArrayBuffer[] | undefined): RemoteChannelEndpoint[][] {
    const remote: RemoteChannelEndpoint[][] = Array.from({ length: this.#pool.size }, () => []);
    for (const edge of this.#graph.edges) {
      const pointwise = edge.partitioner.kind === 'forward';
      for (let p = 0; p < edge.source.parallelism; p++) {
        for (const c of consumersOf(pointwise, edge.target.parallelism, p)) {
          const tp = this.taskManagerOf(p);
          const tc = this.taskManagerOf(c);
          if (tp === tc) continue;
          // TaskManager processes make their rings themselves: memory is shared only within one.
          const ring = this.#pool.sharesMemory ? { ring: SegmentRing.create(this.#ring).buffer } : {};
          const doorbell = doorbells ? { doorbell: doorbells[tc]! } : {};
          remote[tp]!.push({ edgeId: edge.id, producer: p, consumer: c, role: 'output', peer: tc, ...ring, ...doorbell, shape: this.#ring });
          remote[tc]!.push({ edgeId: edge.id, producer: p, consumer: c, role: 'input', peer: tp, ...ring, ...doorbell, shape: this.#ring });
        }
      }
    }
    return remote;
  }
}
