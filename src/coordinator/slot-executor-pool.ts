import type { ConfigLayers, JobPlan } from '../api/define-job.ts';
import { createCheckpointStorageWorkerView } from '../checkpoint/create-checkpoint-storage.ts';
import type { Clock } from '../clock/clock.ts';
import type { Logger } from '../log/logger.ts';
import { lowestLevel } from '../log/logger.ts';
import type { Service, StopReason } from '../lifecycle/service.ts';
import type { FromTaskExecutor } from '../rpc/control-protocol.ts';
import { gatewayProxy } from '../rpc/gateway-proxy.ts';
import type { TaskMetrics } from '../rpc/job-master-gateway.ts';
import { TASK_EXECUTOR_METHODS, type TaskExecutorGateway } from '../rpc/task-executor-gateway.ts';
import type { TaskDescriptions } from './checkpoint-coordinator-deps.ts';
import { HeartbeatMonitor } from './heartbeat-monitor.ts';
import { InThreadConnection } from './in-thread-connection.ts';
import { TaskManagerLostError, type TaskManagerLoss } from './task-manager-lost-error.ts';
import type { SlotExecutorConnection } from './slot-executor-connection.ts';
import { bundleForWorkers, type CompiledJob, type WorkerBundle } from './worker-bundle.ts';
import { WorkerThreadConnection } from './worker-thread-connection.ts';
import type { SlotProvider } from './slot-provider.ts';
import { workerResourceLimits } from '../config/worker-resource-limits.ts';

/** How a lost executor is stopped: at once, it may not answer. */
const LOST: StopReason = { code: 'lost' };

export type Deployment =
  | { readonly kind: 'in-thread' }
  | {
      readonly kind: 'worker-threads';
      readonly taskManagers: number;
      readonly modulePath: string;
      readonly args: readonly string[];
      readonly layers: ConfigLayers;
      /** The installed package's compiled job module, which the threads load too. */
      readonly compiled?: CompiledJob;
    }
  /** Slots of TaskManager processes of a cluster: one per subtask index (the largest parallelism of the job). */
  | { readonly kind: 'cluster'; readonly slots: SlotProvider };

export interface SlotExecutorPoolDeps {
  readonly plan: JobPlan;
  readonly deployment: Deployment;
  readonly log: Logger;
  readonly clock: Clock;
  readonly onMessage: (message: FromTaskExecutor) => void;
  /** A TaskManager was lost; it is replaced by replaceLost() before the next attempt. */
  readonly onLost: (error: TaskManagerLostError) => void;
  /** What the subtasks on a TaskManager were last reported doing (for the reason it is lost). */
  readonly lastReports: (taskManager: number) => string[];
  /** The latest figures of every subtask (a silent TaskManager's subtasks are described by them). */
  readonly lastMetrics: () => readonly TaskMetrics[];
  /** Which TaskManager a subtask runs on. */
  readonly taskManagerOf: (vertexId: string, subtask: number) => number;
}

/**
 * The job's slot executors, named "TaskManager <index>" to users (Flink's ResourceManager and
 * heartbeat services, in one): starts them in this thread or as worker threads (or takes a
 * cluster's slots), watches their heartbeats, declares one lost when it ends, stops answering or
 * does not stop its subtasks, and replaces lost ones before the next attempt. The JobMaster calls
 * them through TaskExecutorGateways: one executor's, or all of them at once.
 */
export class SlotExecutorPool implements Service {
  readonly #d: SlotExecutorPoolDeps;
  #connections: SlotExecutorConnection[] = [];
  readonly #all: TaskExecutorGateway = gatewayProxy(TASK_EXECUTOR_METHODS, (m) => {
    for (const c of this.#connections) c.send(m);
  });
  readonly #executors = new Map<number, TaskExecutorGateway>();
  readonly #lost = new Set<number>();
  readonly #heartbeats = new Map<number, HeartbeatMonitor>();
  #bundle: Promise<WorkerBundle | undefined> | undefined;
  #describeRequests = new Map<number, (tasks: TaskMetrics[]) => void>();
  #nextRequest = 1;

  constructor(deps: SlotExecutorPoolDeps) {
    this.#d = deps;
  }

  get size(): number {
    return this.#connections.length;
  }

  /** Whether the TaskManagers share this process's memory (rings between them are made here). */
  get sharesMemory(): boolean {
    return this.#d.deployment.kind !== 'cluster';
  }

  /** Where a TaskManager runs, as errors and the REST API name it. */
  whereIs(index: number): string | undefined {
    return this.#connections[index]?.where;
  }

  /** The host a TaskManager runs on: its process's for a cluster's slots, else this one ('localhost'). */
  hostOf(index: number): string {
    return this.#connections[index]?.host ?? 'localhost';
  }

  /** The resource id of the TaskManager process a cluster's slot is in (undefined for threads of this process). */
  taskManagerIdOf(index: number): string | undefined {
    return this.#connections[index]?.taskManagerId;
  }

  /** TaskManagers that are not lost. */
  live(): number[] {
    return this.#connections.map((c) => c.index).filter((i) => !this.#lost.has(i));
  }

  get hasLost(): boolean {
    return this.#lost.size > 0;
  }

  async start(): Promise<void> {
    const d = this.#d.deployment;
    if (d.kind === 'cluster') {
      // A slot holds one subtask of every vertex (Flink's default slot sharing).
      const slots = Math.max(...this.#d.plan.jobGraph.vertices.map((v) => v.parallelism));
      const connections = await d.slots.allocate(Array.from({ length: slots }, (_, i) => i));
      this.#connections = connections.map((c) => this.#connect(c));
      return;
    }
    this.#connections = await Promise.all(Array.from({ length: d.kind === 'in-thread' ? 1 : d.taskManagers }, (_, index) => this.#startOne(index)));
  }

  /** The executor `index` (whichever connection holds that index when a call is made). */
  executor(index: number): TaskExecutorGateway {
    let gateway = this.#executors.get(index);
    if (!gateway) {
      gateway = gatewayProxy(TASK_EXECUTOR_METHODS, (m) => this.#connections[index]?.send(m));
      this.#executors.set(index, gateway);
    }
    return gateway;
  }

  /** Every executor: a call goes to each. */
  all(): TaskExecutorGateway {
    return this.#all;
  }

  /** Declares a TaskManager lost: its subtasks fail with a reason naming them; it is replaced before the next attempt. */
  lose(index: number, loss: TaskManagerLoss): void {
    if (this.#lost.has(index)) return;
    this.#lost.add(index);
    this.#heartbeats.get(index)?.stop();
    const c = this.#connections[index]!;
    const error = new TaskManagerLostError(index, c.where ?? (c.location === 'in-thread' ? 'in-thread' : 'worker thread'), loss, this.#d.lastReports(index));
    this.#d.log.error(error.message, { taskManager: index, loss: loss.kind });
    this.#d.onLost(error);
  }

  isLost(index: number): boolean {
    return this.#lost.has(index);
  }

  /** Lost TaskManagers are ended (at once: they may not answer) and replaced. */
  async replaceLost(): Promise<void> {
    const d = this.#d.deployment;
    if (d.kind === 'cluster') {
      const lost = [...this.#lost].sort((a, b) => a - b);
      if (lost.length === 0) return;
      for (const index of lost) {
        this.#heartbeats.get(index)?.stop();
        await this.#connections[index]!.stop(LOST).catch(() => {});
      }
      // All or nothing: the restart needs every one of them (the reason names how many were offered).
      const fresh = await d.slots.allocate(lost);
      lost.forEach((index, i) => {
        this.#connections[index] = this.#connect(fresh[i]!);
        this.#lost.delete(index);
        this.#d.log.warn(`TaskManager ${index} of the job now runs in ${fresh[i]!.where ?? 'a new slot'}, in place of the lost one`);
      });
      return;
    }
    for (const index of [...this.#lost]) {
      this.#heartbeats.get(index)?.stop();
      await this.#connections[index]!.stop(LOST).catch(() => {});
      this.#connections[index] = await this.#startOne(index);
      this.#lost.delete(index);
      this.#d.log.warn(`started a new TaskManager ${index} in place of the lost one`);
    }
  }

  /**
   * Ends every executor (lost ones at once), the worker bundle and, in a cluster, the job's slots.
   * Each call ends what has started by then: a job cancelled while its executors start stops
   * them again once they have.
   */
  async stop(reason: StopReason): Promise<void> {
    for (const m of this.#heartbeats.values()) m.stop();
    await Promise.all(this.#connections.map((c) => c.stop(this.#lost.has(c.index) ? LOST : reason).catch(() => {})));
    await (await this.#bundle)?.discard();
    if (this.#d.deployment.kind === 'cluster') await this.#d.deployment.slots.close();
  }

  /** Asks every TaskManager what its subtasks are doing; those that do not answer in time are named, with their last reports. */
  async describe(timeoutMs = 1000): Promise<TaskDescriptions> {
    const answers = await Promise.all(this.#connections.map((c) => this.#askOne(c, timeoutMs)));
    const silent = answers.flatMap((a, i) => (a === undefined ? [i] : []));
    // A TaskManager whose thread is blocked cannot answer: its subtasks are described by their last report.
    const last = this.#d.lastMetrics().filter((m) => silent.includes(this.#d.taskManagerOf(m.vertexId, m.subtask)));
    return { tasks: [...answers.flatMap((a) => a ?? []).map((t) => ({ ...t, silent: false })), ...last.map((t) => ({ ...t, silent: true }))], silent };
  }

  /** An executor's heartbeat answer came in. */
  heartbeatAnswered(index: number): void {
    this.#heartbeats.get(index)?.received();
  }

  /** An executor's answer to describe came in. */
  describeAnswered(requestId: number, tasks: TaskMetrics[]): void {
    this.#describeRequests.get(requestId)?.(tasks);
    this.#describeRequests.delete(requestId);
  }

  #askOne(c: SlotExecutorConnection, timeoutMs: number): Promise<TaskMetrics[] | undefined> {
    return new Promise((resolve) => {
      const requestId = this.#nextRequest++;
      const timer = setTimeout(() => {
        this.#describeRequests.delete(requestId);
        resolve(undefined);
      }, timeoutMs);
      this.#describeRequests.set(requestId, (tasks) => {
        clearTimeout(timer);
        resolve(tasks);
      });
      this.#gatewayOf(c).describe({ requestId });
    });
  }

  async #startOne(index: number): Promise<SlotExecutorConnection> {
    const { plan, deployment: d, log } = this.#d;
    if (d.kind === 'cluster') throw new Error('cluster slots are allocated together, not one by one');
    if (d.kind === 'in-thread') return this.#connect(new InThreadConnection(index, 1, plan.jobGraph, plan.config, createCheckpointStorageWorkerView(plan.config), lowestLevel(log)));
    this.#bundle ??= bundleForWorkers(d.modulePath, d.compiled);
    const bundle = await this.#bundle;
    const logLevel = lowestLevel(log);
    const c = new WorkerThreadConnection(
      { type: 'init', index, taskManagers: d.taskManagers, modulePath: bundle?.jobModule ?? d.modulePath, jobModulePath: d.modulePath, args: d.args, layers: d.layers as never, ...(logLevel ? { logLevel } : {}) },
      workerResourceLimits(plan.config),
      bundle?.entry,
    );
    await c.ready;
    return this.#connect(c);
  }

  /**
   * Messages go to the JobMaster's gateway (heartbeats and describe answers come back here
   * through it), except a replaced connection's heartbeats: its successor's liveness is its own.
   */
  #connect(c: SlotExecutorConnection): SlotExecutorConnection {
    const current = () => this.#connections[c.index] === c;
    c.onMessage((m) => {
      if (m.type !== 'heartbeat' || current()) this.#d.onMessage(m);
    });
    c.onLost((e) => {
      if (current()) this.lose(c.index, { kind: 'exited', cause: e });
      else this.#d.log.warn(`after TaskManager ${c.index} was replaced, its leftovers failed: ${e.message}`);
    });
    if (c.location !== 'in-thread') this.#watchHeartbeats(c);
    return c;
  }

  /** A gateway to this connection only (not to whichever holds its index later). */
  #gatewayOf(c: SlotExecutorConnection): TaskExecutorGateway {
    return gatewayProxy(TASK_EXECUTOR_METHODS, (m) => c.send(m));
  }

  #watchHeartbeats(c: SlotExecutorConnection): void {
    const config = this.#d.plan.config;
    const timeoutMs = config['heartbeat.timeout'];
    const executor = this.#gatewayOf(c);
    const monitor = new HeartbeatMonitor({
      intervalMs: config['heartbeat.interval'],
      timeoutMs,
      clock: this.#d.clock,
      send: (seq) => executor.heartbeat({ seq }),
      onTimeout: (silentMs) => this.lose(c.index, { kind: 'heartbeat-timeout', silentMs, timeoutMs }),
    });
    this.#heartbeats.get(c.index)?.stop();
    this.#heartbeats.set(c.index, monitor);
    // Its first answer may take a while (the thread is still starting): count from when it is connected.
    monitor.start();
  }
}
