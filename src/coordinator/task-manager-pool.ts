import type { ConfigLayers, JobPlan } from '../api/define-job.ts';
import { createCheckpointStorageWorkerView } from '../checkpoint/create-checkpoint-storage.ts';
import type { Clock } from '../clock/clock.ts';
import type { Logger } from '../log/logger.ts';
import { lowestLevel } from '../log/logger.ts';
import type { FromTaskManager, TaskMetrics, ToTaskManager } from '../network/control-messages.ts';
import type { TaskDescriptions } from './checkpoint-coordinator-deps.ts';
import { HeartbeatMonitor } from './heartbeat-monitor.ts';
import { InThreadGateway } from './in-thread-gateway.ts';
import { TaskManagerLostError, type TaskManagerLoss } from './task-manager-lost-error.ts';
import type { TaskManagerGateway } from './task-manager-gateway.ts';
import { bundleForWorkers, type CompiledJob, type WorkerBundle } from './worker-bundle.ts';
import { WorkerThreadGateway } from './worker-thread-gateway.ts';
import type { SlotProvider } from './slot-provider.ts';

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

export interface TaskManagerPoolDeps {
  readonly plan: JobPlan;
  readonly deployment: Deployment;
  readonly log: Logger;
  readonly clock: Clock;
  readonly onMessage: (message: FromTaskManager) => void;
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
 * The job's TaskManagers (Flink's ResourceManager and heartbeat services, in one): starts them
 * in this thread or as worker threads, watches their heartbeats, declares one lost when it ends,
 * stops answering or does not stop its subtasks, and replaces lost ones before the next attempt.
 */
export class TaskManagerPool {
  readonly #d: TaskManagerPoolDeps;
  #gateways: TaskManagerGateway[] = [];
  readonly #lost = new Set<number>();
  readonly #heartbeats = new Map<number, HeartbeatMonitor>();
  #bundle: Promise<WorkerBundle | undefined> | undefined;
  #describeRequests = new Map<number, (tasks: TaskMetrics[]) => void>();
  #nextRequest = 1;

  constructor(deps: TaskManagerPoolDeps) {
    this.#d = deps;
  }

  get size(): number {
    return this.#gateways.length;
  }

  /** Whether the TaskManagers share this process's memory (rings between them are made here). */
  get sharesMemory(): boolean {
    return this.#d.deployment.kind !== 'cluster';
  }

  /** Where a TaskManager runs, as errors and the REST API name it. */
  whereIs(index: number): string | undefined {
    return this.#gateways[index]?.where;
  }

  /** The host a TaskManager runs on: its process's for a cluster's slots, else this one ('localhost'). */
  hostOf(index: number): string {
    return this.#gateways[index]?.host ?? 'localhost';
  }

  /** TaskManagers that are not lost. */
  live(): number[] {
    return this.#gateways.map((g) => g.index).filter((i) => !this.#lost.has(i));
  }

  get hasLost(): boolean {
    return this.#lost.size > 0;
  }

  async start(): Promise<void> {
    const d = this.#d.deployment;
    if (d.kind === 'cluster') {
      // A slot holds one subtask of every vertex (Flink's default slot sharing).
      const slots = Math.max(...this.#d.plan.jobGraph.vertices.map((v) => v.parallelism));
      const gateways = await d.slots.allocate(Array.from({ length: slots }, (_, i) => i));
      this.#gateways = gateways.map((g) => this.#connect(g));
      return;
    }
    this.#gateways = await Promise.all(Array.from({ length: d.kind === 'in-thread' ? 1 : d.taskManagers }, (_, index) => this.#startOne(index)));
  }

  send(index: number, message: ToTaskManager, transfer?: Parameters<TaskManagerGateway['send']>[1]): void {
    this.#gateways[index]?.send(message, transfer);
  }

  broadcast(message: ToTaskManager): void {
    for (const g of this.#gateways) g.send(message);
  }

  /** Declares a TaskManager lost: its subtasks fail with a reason naming them; it is replaced before the next attempt. */
  lose(index: number, loss: TaskManagerLoss): void {
    if (this.#lost.has(index)) return;
    this.#lost.add(index);
    this.#heartbeats.get(index)?.stop();
    const g = this.#gateways[index]!;
    const error = new TaskManagerLostError(index, g.where ?? (g.location === 'in-thread' ? 'in-thread' : 'worker thread'), loss, this.#d.lastReports(index));
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
        await this.#gateways[index]!.terminate(true).catch(() => {});
      }
      // All or nothing: the restart needs every one of them (the reason names how many were offered).
      const fresh = await d.slots.allocate(lost);
      lost.forEach((index, i) => {
        this.#gateways[index] = this.#connect(fresh[i]!);
        this.#lost.delete(index);
        this.#d.log.warn(`TaskManager ${index} of the job now runs in ${fresh[i]!.where ?? 'a new slot'}, in place of the lost one`);
      });
      return;
    }
    for (const index of [...this.#lost]) {
      this.#heartbeats.get(index)?.stop();
      await this.#gateways[index]!.terminate(true).catch(() => {});
      this.#gateways[index] = await this.#startOne(index);
      this.#lost.delete(index);
      this.#d.log.warn(`started a new TaskManager ${index} in place of the lost one`);
    }
  }

  async terminateAll(): Promise<void> {
    for (const m of this.#heartbeats.values()) m.stop();
    await Promise.all(this.#gateways.map((g) => g.terminate(this.#lost.has(g.index)).catch(() => {})));
    await (await this.#bundle)?.discard();
    if (this.#d.deployment.kind === 'cluster') await this.#d.deployment.slots.close();
  }

  /** Asks every TaskManager what its subtasks are doing; those that do not answer in time are named, with their last reports. */
  async describe(timeoutMs = 1000): Promise<TaskDescriptions> {
    const answers = await Promise.all(this.#gateways.map((g) => this.#askOne(g, timeoutMs)));
    const silent = answers.flatMap((a, i) => (a === undefined ? [i] : []));
    // A TaskManager whose thread is blocked cannot answer: its subtasks are described by their last report.
    const last = this.#d.lastMetrics().filter((m) => silent.includes(this.#d.taskManagerOf(m.vertexId, m.subtask)));
    return { tasks: [...answers.flatMap((a) => a ?? []).map((t) => ({ ...t, silent: false })), ...last.map((t) => ({ ...t, silent: true }))], silent };
  }

  #askOne(g: TaskManagerGateway, timeoutMs: number): Promise<TaskMetrics[] | undefined> {
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
      g.send({ type: 'describe', requestId });
    });
  }

  async #startOne(index: number): Promise<TaskManagerGateway> {
    const { plan, deployment: d, log } = this.#d;
    if (d.kind === 'cluster') throw new Error('cluster slots are allocated together, not one by one');
    if (d.kind === 'in-thread') return this.#connect(new InThreadGateway(index, 1, plan.jobGraph, plan.config, createCheckpointStorageWorkerView(plan.config), lowestLevel(log)));
    this.#bundle ??= bundleForWorkers(d.modulePath, d.compiled);
    const bundle = await this.#bundle;
    const logLevel = lowestLevel(log);
    const g = new WorkerThreadGateway(
      { type: 'init', index, taskManagers: d.taskManagers, modulePath: bundle?.jobModule ?? d.modulePath, jobModulePath: d.modulePath, args: d.args, layers: d.layers as never, ...(logLevel ? { logLevel } : {}) },
      bundle?.entry,
    );
    await g.ready;
    return this.#connect(g);
  }

  #connect(g: TaskManagerGateway): TaskManagerGateway {
    const current = () => this.#gateways[g.index] === g;
    g.onMessage((m) => {
      if (m.type === 'heartbeat') {
        if (current()) this.#heartbeats.get(g.index)?.received();
      } else if (m.type === 'described') {
        this.#describeRequests.get(m.requestId)?.(m.tasks);
        this.#describeRequests.delete(m.requestId);
      } else this.#d.onMessage(m);
    });
    g.onLost((e) => {
      if (current()) this.lose(g.index, { kind: 'exited', cause: e });
      else this.#d.log.warn(`after TaskManager ${g.index} was replaced, its leftovers failed: ${e.message}`);
    });
    if (g.location !== 'in-thread') this.#watchHeartbeats(g);
    return g;
  }

  #watchHeartbeats(g: TaskManagerGateway): void {
    const c = this.#d.plan.config;
    const timeoutMs = c['heartbeat.timeout'];
    const monitor = new HeartbeatMonitor({
      intervalMs: c['heartbeat.interval'],
      timeoutMs,
      clock: this.#d.clock,
      send: (seq) => g.send({ type: 'heartbeat', seq }),
      onTimeout: (silentMs) => this.lose(g.index, { kind: 'heartbeat-timeout', silentMs, timeoutMs }),
    });
    this.#heartbeats.get(g.index)?.stop();
    this.#heartbeats.set(g.index, monitor);
    // Its first answer may take a while (the thread is still starting): count from when it is connected.
    monitor.start();
  }
}
