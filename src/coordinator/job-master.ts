import { randomBytes } from 'node:crypto';
import { MessageChannel } from 'node:worker_threads';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ConfigLayers, JobPlan } from '../api/define-job.ts';
import type { Source } from '../api/source.ts';
import { fileTaskStateStorage } from '../checkpoint/file-task-state-storage.ts';
import { readMetadata } from '../checkpoint/checkpoint-metadata.ts';
import { makeDirectories } from '../fs/make-directories.ts';
import type { JobGraph, JobVertex } from '../graph/job-graph.ts';
import type { Logger } from '../log/logger.ts';
import { lowestLevel, silentLogger } from '../log/logger.ts';
import type {
  FromTaskManager,
  RemoteChannelEndpoint,
  SerializedError,
  TaskDeployment,
  TaskMetrics,
  TaskRestoreState,
  TaskStatus,
} from '../network/control-messages.ts';
import { serializeError } from '../network/control-messages.ts';
import { consumersOf, taskManagerFor } from '../worker/placement.ts';
import { SourceCoordinator } from './source-coordinator.ts';
import { CheckpointCoordinator } from './checkpoint-coordinator.ts';
import type { CompletedCheckpoint } from './completed-checkpoint.ts';
import { FaultInjector, type FaultInjectionOptions, type PlannedFailure } from './fault-injector.ts';
import { InThreadGateway } from './in-thread-gateway.ts';
import { systemClock } from '../clock/clock.ts';
import { CancellationWatch } from './cancellation-watch.ts';
import { HeartbeatMonitor } from './heartbeat-monitor.ts';
import { TaskManagerLostError, type TaskManagerLoss } from './task-manager-lost-error.ts';
import { JobFailure } from './job-failure.ts';
import { SavepointError } from './savepoint-error.ts';
import { newJobId } from './job-id.ts';
import { isTerminal, type JobStatus } from './job-status.ts';
import { createRestartStrategy, type RestartStrategy } from './restart-strategy.ts';
import { assignState } from './state-assignment.ts';
import type { TaskManagerGateway } from './task-manager-gateway.ts';
import { verifyCheckpointFiles } from './verify-checkpoint.ts';
import { WorkerThreadGateway } from './worker-thread-gateway.ts';
import { bundleForWorkers, type WorkerBundle } from './worker-bundle.ts';

export type Deployment =
  | { readonly kind: 'in-thread' }
  | {
      readonly kind: 'worker-threads';
      readonly taskManagers: number;
      readonly modulePath: string;
      readonly args: readonly string[];
      readonly layers: ConfigLayers;
    };

export interface JobListener {
  onStatus?(status: JobStatus): void;
  onCheckpointCompleted?(checkpoint: CompletedCheckpoint): void;
  onCheckpointFailed?(checkpointId: number, reason: string): void;
  onRestart?(info: { attempt: number; cause: SerializedError; delayMs: number }): void;
  onRestored?(info: { checkpointId: number; path: string; isSavepoint: boolean; sourcePositions: Record<string, unknown[]> }): void;
}

export interface JobMasterOptions {
  readonly jobId?: string;
  readonly plan: JobPlan;
  readonly deployment: Deployment;
  /** A savepoint or retained checkpoint directory (or its `_metadata`) to start from. */
  readonly restoreFrom?: string;
  readonly allowNonRestoredState?: boolean;
  readonly log?: Logger;
  readonly listener?: JobListener;
  readonly faults?: FaultInjectionOptions;
  /** Keep the completed checkpoints when the job finishes (weir verify reads the final one). */
  readonly retainCheckpointsOnFinish?: boolean;
}

export interface ExceptionRecord {
  readonly timestamp: number;
  readonly attempt: number;
  readonly error: SerializedError;
  readonly restarted: boolean;
}

export interface JobResult {
  readonly jobId: string;
  readonly status: JobStatus;
  readonly error: Error | undefined;
  readonly restarts: number;
  readonly injectedFailures: number;
  readonly durationMs: number;
  /** The newest completed checkpoint's directory, if it was kept. */
  readonly latestCheckpoint: string | undefined;
}

interface TaskEntry {
  readonly vertex: JobVertex;
  readonly subtask: number;
  status: TaskStatus;
}

/**
 * The JobManager of one job: deploys its subtasks onto TaskManagers, watches their states,
 * coordinates checkpoints, and on a failure restarts the job from the latest completed
 * checkpoint as the restart strategy allows.
 */
export class JobMaster {
  readonly jobId: string;
  readonly graph: JobGraph;
  readonly plan: JobPlan;
  readonly checkpoints: CheckpointCoordinator;
  readonly exceptions: ExceptionRecord[] = [];
  readonly startedAt = Date.now();
  readonly #o: JobMasterOptions;
  readonly #log: Logger;
  readonly #restart: RestartStrategy;
  readonly #faults: FaultInjector | undefined;
  #gateways: TaskManagerGateway[] = [];
  #status: JobStatus = 'CREATED';
  #attempt = -1;
  #tasks = new Map<string, TaskEntry>();
  #armed: PlannedFailure | undefined;
  #restarts = 0;
  #metrics = new Map<string, TaskMetrics>();
  #positions = new Map<string, unknown[]>();
  #initialSplits = new Map<string, unknown[]>();
  #jobDir = '';
  #ownsJobDir = false;
  #finalCheckpoint = false;
  /** A stop-with-savepoint is under way: drained sources' end of data must not start a final checkpoint. */
  #stopping = false;
  #runningWaiters: Array<{ resolve: () => void; reject: (e: Error) => void }> = [];
  #done!: (result: JobResult) => void;
  readonly #result: Promise<JobResult>;
  #error: Error | undefined;
  readonly #lost = new Set<number>();
  readonly #heartbeats = new Map<number, HeartbeatMonitor>();
  /** The failed attempt whose subtasks are being stopped before the next is deployed. */
  #cancellation: CancellationWatch | undefined;
  #bundle: Promise<WorkerBundle | undefined> | undefined;
  #describeRequests = new Map<number, (tasks: TaskMetrics[]) => void>();
  /** Split enumerators of the current attempt, by source vertex id. */
  readonly #sourceCoordinators = new Map<string, SourceCoordinator>();
  /** Enumerator states of the checkpoint the next attempt restores from (undefined: a fresh start). */
  #restoredCoordinators: Record<string, unknown> | undefined;
  #nextRequest = 1;

  constructor(options: JobMasterOptions) {
    this.#o = options;
    this.jobId = options.jobId ?? newJobId();
    this.plan = options.plan;
    this.graph = options.plan.jobGraph;
    this.#log = (options.log ?? silentLogger).child({ jobId: this.jobId });
    this.#restart = createRestartStrategy(options.plan.config);
    this.#faults = options.faults && options.faults.failures > 0 ? new FaultInjector(options.faults) : undefined;
    this.#result = new Promise((resolve) => (this.#done = resolve));
    this.checkpoints = new CheckpointCoordinator({
      jobId: this.jobId,
      config: options.plan.config,
      jobGraph: this.graph,
      log: this.#log,
      triggerSources: (id, timestamp, opts) => this.#broadcast({ type: 'trigger-checkpoint', attempt: this.#attempt, checkpointId: id, timestamp, options: opts }),
      snapshotCoordinators: (id) => Object.fromEntries([...this.#sourceCoordinators.values()].map((c) => [c.uid, c.snapshotState(id)])),
      notifyComplete: (id) => {
        for (const c of this.#sourceCoordinators.values()) c.notifyCheckpointComplete(id);
        this.#broadcast({ type: 'checkpoint-complete', attempt: this.#attempt, checkpointId: id });
      },
      notifyAborted: (id, reason) => this.#broadcast({ type: 'checkpoint-aborted', attempt: this.#attempt, checkpointId: id, reason }),
      describeTasks: () => this.describeTasks(),
      failJob: (e) => this.#onFailure(serializeError(e)),
      onCompleted: (c) => {
        this.#logSourceProgress(c.id);
        options.listener?.onCheckpointCompleted?.(c);
      },
      onFailed: (id, reason) => options.listener?.onCheckpointFailed?.(id, reason),
    });
  }

  get status(): JobStatus {
    return this.#status;
  }

  get restarts(): number {
    return this.#restarts;
  }

  get attempt(): number {
    return this.#attempt;
  }

  get checkpointDirectory(): string {
    return this.#jobDir;
  }

  /** Starts the job; resolves when it reaches a terminal state. */
  async run(): Promise<JobResult> {
    try {
      await this.#prepareStorage();
      // cancel() while starting: start nothing more (what was started, #finish has stopped), and
      // the temporary checkpoint directory made after #finish cleaned up goes too.
      if (isTerminal(this.#status)) {
        if (this.#ownsJobDir) await rm(join(this.#jobDir, '..'), { recursive: true, force: true }).catch(() => {});
        return this.#result;
      }
      await this.#startTaskManagers();
      // TaskManagers that came up after a cancel(): #finish did not see them, stop them here.
      if (isTerminal(this.#status)) {
        await Promise.all(this.#gateways.map((g) => g.terminate().catch(() => {})));
    await (await this.#bundle)?.dispose();
        return this.#result;
      }
      let restore: Map<string, TaskRestoreState> | undefined;
      if (this.#o.restoreFrom) restore = await this.#restoreFromPath(resolve(this.#o.restoreFrom));
      if (isTerminal(this.#status)) return this.#result;
      this.#deploy(restore);
    } catch (e) {
      await this.#finish('FAILED', e as Error);
    }
    return this.#result;
  }

  /**
   * Takes a savepoint of the running job: the checkpoint mechanism, triggered by a person, written
   * self-contained to `<dir>/sp-<job-id-6>-<random>`. Savepoints are never deleted by weir.
   */
  async triggerSavepoint(dir?: string): Promise<CompletedCheckpoint> {
    if (this.#status !== 'RUNNING') throw new SavepointError(this.jobId, `the job is ${this.#status}, not RUNNING`);
    const targetDir = await this.#savepointTarget(dir);
    try {
      return await this.checkpoints.trigger({ type: 'savepoint', targetDir });
    } catch (e) {
      throw new SavepointError(this.jobId, (e as Error).message);
    }
  }

  /**
   * Stop with savepoint: the sources stop (with drain, they end their input so every operator
   * flushes), a final aligned savepoint is taken, sinks commit, and the job ends FINISHED. If the
   * savepoint fails, stopped sources read on and the job keeps running.
   */
  async stopWithSavepoint(dir: string | undefined, drain = false): Promise<CompletedCheckpoint> {
    if (this.#status !== 'RUNNING') throw new SavepointError(this.jobId, `the job is ${this.#status}, not RUNNING`);
    const targetDir = await this.#savepointTarget(dir);
    if (this.#status !== 'RUNNING') throw new SavepointError(this.jobId, `the job is ${this.#status}, not RUNNING`);
    const attempt = this.#attempt;
    this.#stopping = true;
    this.checkpoints.stopPeriodic();
    this.#broadcast({ type: 'stop-sources', attempt, drain });
    try {
      const savepoint = await this.checkpoints.trigger({ type: 'savepoint', targetDir, force: true });
      // A synchronous savepoint commits side effects, as the last checkpoint of the job does.
      this.#broadcast({ type: 'checkpoint-complete', attempt, checkpointId: savepoint.id });
      this.#finalCheckpoint = true;
      this.#broadcast({ type: 'finish', attempt });
      return savepoint;
    } catch (e) {
      this.#stopping = false;
      if (this.#attempt === attempt && this.#status === 'RUNNING') {
        if (drain) this.#onFailure(serializeError(new Error(`stop-with-savepoint with drain failed: ${(e as Error).message}`)));
        else {
          this.#broadcast({ type: 'resume-sources', attempt });
          this.checkpoints.start();
        }
      }
      throw new SavepointError(this.jobId, (e as Error).message);
    }
  }

  /** The savepoint's own directory, made now: a target that cannot hold it fails before anything stops. */
  async #savepointTarget(dir: string | undefined): Promise<string> {
    const base = dir ?? this.plan.config['execution.checkpointing.savepoint-dir'];
    if (!base) throw new SavepointError(this.jobId, 'no savepoint directory: give one, or set execution.checkpointing.savepoint-dir');
    const target = join(resolve(base), `sp-${this.jobId.slice(0, 6)}-${randomBytes(6).toString('hex')}`);
    try {
      await makeDirectories(target);
    } catch (e) {
      throw new SavepointError(this.jobId, (e as Error).message);
    }
    return target;
  }

  /** Cancels the job (ungraceful, like `flink cancel`). */
  async cancel(): Promise<JobResult> {
    if (!isTerminal(this.#status)) await this.#finish('CANCELED', undefined);
    return this.#result;
  }

  result(): Promise<JobResult> {
    return this.#result;
  }

  taskStatuses(): ReadonlyArray<{ vertexId: string; subtask: number; status: TaskStatus }> {
    return [...this.#tasks.values()].map((t) => ({ vertexId: t.vertex.id, subtask: t.subtask, status: t.status }));
  }

  /** Latest figures of each subtask (records in/out, backpressure, what it is doing). */
  taskMetrics(): readonly TaskMetrics[] {
    return [...this.#metrics.values()];
  }

  /** Records read by the sources and records that reached the sinks, over the job's lifetime of this attempt. */
  recordCounts(): { readIn: number; writtenOut: number } {
    let readIn = 0;
    let writtenOut = 0;
    for (const m of this.#metrics.values()) {
      const vertex = this.graph.vertices.find((v) => v.id === m.vertexId);
      if (!vertex) continue;
      if (vertex.isSource) readIn += m.recordsIn;
      if (vertex.operators.some((o) => o.spec.kind === 'sink')) writtenOut += m.recordsIn;
    }
    return { readIn, writtenOut };
  }

  /** Asks every TaskManager what its subtasks are doing; TaskManagers that do not answer in time are named. */
  async describeTasks(timeoutMs = 1000): Promise<{ tasks: TaskMetrics[]; silent: number[] }> {
    const answers = await Promise.all(
      this.#gateways.map(
        (g) =>
          new Promise<TaskMetrics[] | undefined>((resolve) => {
            const requestId = this.#nextRequest++;
            const timer = setTimeout(() => {
              this.#describeRequests.delete(requestId);
              resolve(undefined);
            }, timeoutMs);
            this.#describeRequests.set(requestId, (tasks) => {
              clearTimeout(timer);
              resolve(tasks);
            });
            g.send({ type: 'describe', attempt: this.#attempt, requestId });
          }),
      ),
    );
    const silent = answers.flatMap((a, i) => (a === undefined ? [i] : []));
    const n = this.#gateways.length;
    // A TaskManager whose thread is blocked cannot answer: its subtasks are described by their last report.
    const lastKnown = [...this.#metrics.values()]
      .filter((m) => silent.includes(taskManagerFor(m.subtask, n)) && m.activityBase !== undefined && m.activitySince !== undefined)
      .map((m) => ({
        ...m,
        activity: `${m.activityBase} (for ${Math.round((Date.now() - m.activitySince!) / 1000)} s, as last reported: its TaskManager no longer answers, its thread is blocked)`,
      }));
    return { tasks: [...answers.flatMap((a) => a ?? []), ...lastKnown], silent };
  }

  // ---- setup ----

  async #prepareStorage(): Promise<void> {
    const dir = this.plan.config['execution.checkpointing.dir'];
    if (dir) {
      this.#jobDir = join(resolve(dir), this.jobId);
      // A directory that can never hold a checkpoint fails the job now, naming it, not at every trigger.
      if (this.checkpoints.periodic) await makeDirectories(this.#jobDir).catch((e: Error) => {
        throw new Error(`execution.checkpointing.dir: ${e.message}`, { cause: e });
      });
    } else {
      this.#jobDir = join(await mkdtemp(join(tmpdir(), 'weir-checkpoints-')), this.jobId);
      this.#ownsJobDir = true;
    }
    this.checkpoints.setJobDir(this.#jobDir);
  }

  async #startTaskManagers(): Promise<void> {
    const d = this.#o.deployment;
    this.#gateways = await Promise.all(Array.from({ length: d.kind === 'in-thread' ? 1 : d.taskManagers }, (_, index) => this.#startTaskManager(index)));
  }

  async #startTaskManager(index: number): Promise<TaskManagerGateway> {
    if (this.#o.deployment.kind === 'in-thread') {
      return this.#connect(new InThreadGateway(index, 1, this.graph, this.plan.config, fileTaskStateStorage, lowestLevel(this.#log)));
    }
    return this.#startWorker(index);
  }

  async #startWorker(index: number): Promise<TaskManagerGateway> {
    const d = this.#o.deployment as Extract<Deployment, { kind: 'worker-threads' }>;
    if (this.#bundle === undefined) this.#bundle = bundleForWorkers(d.modulePath);
    const bundle = await this.#bundle;
    const modulePath = bundle?.jobModule ?? d.modulePath;
    const logLevel = lowestLevel(this.#log);
    const g = new WorkerThreadGateway(
      { type: 'init', index, taskManagers: d.taskManagers, modulePath, jobModulePath: d.modulePath, args: d.args, layers: d.layers as never, ...(logLevel ? { logLevel } : {}) },
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
      } else this.#onMessage(m);
    });
    g.onLost((e) => {
      if (current()) this.#loseTaskManager(g.index, { kind: 'exited', cause: e });
      else this.#log.warn(`after TaskManager ${g.index} was replaced, its leftovers failed: ${e.message}`);
    });
    if (g.location !== 'in-thread') this.#watchHeartbeats(g);
    return g;
  }

  #watchHeartbeats(g: TaskManagerGateway): void {
    const c = this.plan.config;
    const timeoutMs = c['heartbeat.timeout'];
    const monitor = new HeartbeatMonitor({
      intervalMs: c['heartbeat.interval'],
      timeoutMs,
      clock: systemClock,
      send: (seq) => g.send({ type: 'heartbeat', seq }),
      onTimeout: (silentMs) => this.#loseTaskManager(g.index, { kind: 'heartbeat-timeout', silentMs, timeoutMs }),
    });
    this.#heartbeats.get(g.index)?.stop();
    this.#heartbeats.set(g.index, monitor);
    // Its first answer may take a while (the thread is still starting): count from when it is connected.
    monitor.start();
  }

  /**
   * A TaskManager that ended, stopped answering or did not stop its subtasks: they fail with a
   * reason naming them and what each was last doing, and it is replaced before the restart.
   */
  #loseTaskManager(index: number, loss: TaskManagerLoss): void {
    if (this.#lost.has(index) || isTerminal(this.#status)) return;
    this.#lost.add(index);
    this.#heartbeats.get(index)?.stop();
    this.#cancellation?.answered(index);
    const g = this.#gateways[index]!;
    const error = new TaskManagerLostError(index, g.location === 'in-thread' ? 'in-thread' : 'worker thread', loss, this.#lastReports(index));
    this.#log.error(error.message, { taskManager: index, loss: loss.kind });
    this.#onFailure(serializeError(error));
  }

  /** What each subtask on a TaskManager was last reported doing, and for how long since. */
  #lastReports(index: number): string[] {
    const n = this.#gateways.length;
    return [...this.#tasks.values()]
      .filter((t) => taskManagerFor(t.subtask, n) === index)
      .map((t) => {
        const m = this.#metrics.get(`${t.vertex.id}:${t.subtask}`);
        const since = m?.activitySince !== undefined ? ` (for ${Math.round((Date.now() - m.activitySince) / 1000)} s)` : '';
        return `'${t.vertex.name}' ${t.subtask + 1}/${t.vertex.parallelism}: ${m?.activityBase ?? t.status}${since}`;
      });
  }

  /** Lost TaskManagers are ended (at once: they may not answer) and replaced before the next attempt. */
  async #replaceLostTaskManagers(): Promise<void> {
    for (const index of [...this.#lost]) {
      this.#heartbeats.get(index)?.stop();
      await this.#gateways[index]!.terminate(true).catch(() => {});
      this.#gateways[index] = await this.#startTaskManager(index);
      this.#lost.delete(index);
      this.#log.warn(`started a new TaskManager ${index} in place of the lost one`);
    }
  }

  async #restoreFromPath(path: string): Promise<Map<string, TaskRestoreState>> {
    const { metadata, directory } = await readMetadata(path);
    await verifyCheckpointFiles(metadata, directory);
    const assigned = assignState(metadata, directory, this.graph, this.#o.allowNonRestoredState ?? false);
    this.#restoredCoordinators = metadata.coordinators ?? {};
    this.checkpoints.setNextId(metadata.checkpointId + 1);
    this.checkpoints.stats.restored(metadata.checkpointId, directory, metadata.type === 'savepoint');
    this.#announceRestore(metadata.checkpointId, directory, metadata.type === 'savepoint', assigned);
    return assigned;
  }

  /** The latest completed checkpoint that reads back whole; corrupt ones are skipped, loudly. */
  async #latestRestore(): Promise<Map<string, TaskRestoreState> | undefined> {
    this.#restoredCoordinators = undefined;
    let skipped: Error | undefined;
    for (;;) {
      const latest = this.checkpoints.store.latest();
      // Every retained checkpoint is unreadable: starting over (or from the original savepoint)
      // would repeat what the completed checkpoints committed, so the job fails instead.
      if (!latest && skipped) throw skipped;
      if (!latest) return this.#o.restoreFrom ? this.#restoreFromPath(resolve(this.#o.restoreFrom)) : undefined;
      try {
        const { metadata, directory } = await readMetadata(latest.directory);
        await verifyCheckpointFiles(metadata, directory);
        const assigned = assignState(metadata, directory, this.graph, true);
        this.#restoredCoordinators = metadata.coordinators ?? {};
        this.checkpoints.stats.restored(latest.id, directory, false);
        this.#announceRestore(latest.id, directory, false, assigned);
        return assigned;
      } catch (e) {
        const fallback = this.checkpoints.store.all().length > 1 ? 'falling back to the previous one' : 'no older checkpoint is retained';
        this.#log.error(`checkpoint ${latest.id} cannot be restored, ${fallback}: ${(e as Error).message}`, {
          checkpointId: latest.id,
        });
        this.checkpoints.store.remove(latest.id);
        skipped = e as Error;
      }
    }
  }

  #announceRestore(checkpointId: number, path: string, isSavepoint: boolean, assigned: Map<string, TaskRestoreState>): void {
    const sourcePositions: Record<string, unknown[]> = {};
    for (const v of this.graph.vertices.filter((x) => x.isSource)) {
      for (let s = 0; s < v.parallelism; s++) {
        const state = assigned.get(`${v.id}:${s}`)?.operators[v.operators[0]!.uid]?.operator['_source-splits'];
        sourcePositions[`${v.name} ${s + 1}/${v.parallelism}`] = state?.values ?? [];
      }
    }
    this.#log.info(`restoring from ${isSavepoint ? 'savepoint' : 'checkpoint'} ${checkpointId}`, { path });
    this.#o.listener?.onRestored?.({ checkpointId, path, isSavepoint, sourcePositions });
  }

  // ---- deployment ----

  async #splitsFor(vertex: JobVertex): Promise<unknown[][]> {
    const perSubtask: unknown[][] = Array.from({ length: vertex.parallelism }, () => []);
    const reported = this.#positionsFor(vertex);
    if (reported) return reported;
    const spec = vertex.operators[0]!.spec as { source: Source<unknown, unknown> };
    // Sources with an enumerator get their splits when their readers ask.
    if (spec.source.createEnumerator) return perSubtask;
    let splits = this.#initialSplits.get(vertex.id);
    if (!splits) {
      splits = await spec.source.createSplits({ parallelism: vertex.parallelism });
      this.#initialSplits.set(vertex.id, splits);
    }
    splits.forEach((split, i) => perSubtask[i % vertex.parallelism]!.push(split));
    return perSubtask;
  }

  /** At-most-once restarts continue from where the readers were, not from a checkpoint. */
  #positionsFor(vertex: JobVertex): unknown[][] | undefined {
    if (this.plan.config['execution.checkpointing.mode'] !== 'at-most-once' || this.#attempt < 0) return undefined;
    const lists = Array.from({ length: vertex.parallelism }, (_, s) => this.#positions.get(`${vertex.id}:${s}`));
    if (lists.some((l) => l === undefined)) {
      this.#log.warn(`no final position from every subtask of '${vertex.name}': restarting those from their last known position`);
    }
    if (lists.every((l) => l === undefined)) return undefined;
    return lists.map((l, s) => l ?? this.#initialSplits.get(vertex.id)?.filter((_, i) => i % vertex.parallelism === s) ?? []);
  }

  #deploy(restore: Map<string, TaskRestoreState> | undefined): void {
    void this.#deployAsync(restore).catch((e) => this.#onFailure(serializeError(e)));
  }

  async #deployAsync(restore: Map<string, TaskRestoreState> | undefined): Promise<void> {
    const attempt = ++this.#attempt;
    const n = this.#gateways.length;
    const perTm: TaskDeployment[][] = this.#gateways.map(() => []);
    const remote: Array<Array<RemoteChannelEndpoint>> = this.#gateways.map(() => []);
    this.#tasks.clear();
    this.#metrics.clear();
    this.#finalCheckpoint = false;
    this.#armed = this.#faults?.next(this.graph);
    for (const vertex of this.graph.vertices) {
      const splits = vertex.isSource ? await this.#splitsFor(vertex) : undefined;
      for (let s = 0; s < vertex.parallelism; s++) {
        this.#tasks.set(`${vertex.id}:${s}`, { vertex, subtask: s, status: 'initializing' });
        const armed = this.#armed && this.#armed.vertexId === vertex.id && this.#armed.subtask === s ? this.#armed.afterRecords : undefined;
        perTm[taskManagerFor(s, n)]!.push({
          vertexId: vertex.id,
          subtask: s,
          splits: splits?.[s] ?? [],
          restore: restore?.get(`${vertex.id}:${s}`) ?? null,
          ...(armed !== undefined ? { failAfterRecords: armed } : {}),
        });
      }
    }
    for (const edge of this.graph.edges) {
      const pointwise = edge.partitioner.kind === 'forward';
      for (let p = 0; p < edge.source.parallelism; p++) {
        for (const c of consumersOf(pointwise, edge.target.parallelism, p)) {
          const tp = taskManagerFor(p, n);
          const tc = taskManagerFor(c, n);
          if (tp === tc) continue;
          const { port1, port2 } = new MessageChannel();
          remote[tp]!.push({ edgeId: edge.id, producer: p, consumer: c, role: 'output', port: port1 });
          remote[tc]!.push({ edgeId: edge.id, producer: p, consumer: c, role: 'input', port: port2 });
        }
      }
    }
    if (isTerminal(this.#status)) return;
    await this.#startSourceCoordinators(attempt);
    // One lost while this attempt was being prepared would never run its subtasks: replace it first.
    while (this.#lost.size > 0 && !isTerminal(this.#status)) await this.#replaceLostTaskManagers();
    if (isTerminal(this.#status) || attempt !== this.#attempt) return;
    this.#setStatus('RUNNING');
    this.#gateways.forEach((g, i) => {
      g.send(
        { type: 'deploy', jobId: this.jobId, attempt, fingerprint: this.graph.fingerprint, tasks: perTm[i]!, remoteChannels: remote[i]! },
        remote[i]!.map((r) => r.port),
      );
    });
    this.#log.info(`deployed attempt ${attempt}`, { attempt, tasks: this.#tasks.size, taskManagers: n });
  }

  /** One split enumerator per source that has one, from the restored checkpoint's state or fresh. */
  async #startSourceCoordinators(attempt: number): Promise<void> {
    await this.#closeSourceCoordinators();
    const n = this.#gateways.length;
    for (const vertex of this.graph.vertices.filter((v) => v.isSource)) {
      const source = (vertex.operators[0]!.spec as { source: Source<unknown, unknown> }).source;
      if (!source.createEnumerator) continue;
      const coordinator = new SourceCoordinator(vertex, source, this.#restoredCoordinators?.[vertex.operators[0]!.uid], {
        jobId: this.jobId,
        attempt,
        checkpointing: this.checkpoints.periodic,
        log: this.#log,
        send: (subtask, message) => this.#gateways[taskManagerFor(subtask, n)]?.send(message),
        failJob: (e) => {
          if (attempt === this.#attempt) this.#onFailure(serializeError(e));
        },
        setBacklog: (backlog) => this.checkpoints.setBacklog(vertex.id, backlog),
      });
      this.#sourceCoordinators.set(vertex.id, coordinator);
      coordinator.start();
    }
  }

  async #closeSourceCoordinators(): Promise<void> {
    const open = [...this.#sourceCoordinators.values()];
    this.#sourceCoordinators.clear();
    await Promise.all(open.map((c) => c.close().catch((e: Error) => this.#log.warn(`closing the split enumerator of '${c.vertex.name}': ${e.message}`))));
  }

  /** Progress of sources that report it (a CDC snapshot), with each checkpoint: logs show it when no terminal does. */
  #logSourceProgress(checkpointId: number): void {
    for (const [vertexId, figures] of Object.entries(this.sourceCoordinatorMetrics())) {
      if (figures['snapshot_done'] === undefined || this.#snapshotsLogged.has(vertexId)) continue;
      const vertex = this.graph.vertices.find((v) => v.id === vertexId)?.name ?? vertexId;
      if (figures['snapshot_done'] === 0) {
        this.#log.info(`snapshot progress of '${vertex}'`, { checkpointId, vertex, ...figures });
        continue;
      }
      this.#snapshotsLogged.add(vertexId);
      this.#log.info(`snapshot of '${vertex}' finished: ${figures['snapshot_chunks_finished']} chunks, ${figures['snapshot_rows_read']} rows`, { checkpointId, vertex, ...figures });
    }
  }
  readonly #snapshotsLogged = new Set<string>();

  /** The split enumerators' progress figures, by source vertex id. */
  sourceCoordinatorMetrics(): Record<string, Record<string, number>> {
    return Object.fromEntries([...this.#sourceCoordinators].map(([id, c]) => [id, c.metrics()]));
  }

  #broadcast(message: Parameters<TaskManagerGateway['send']>[0]): void {
    for (const g of this.#gateways) g.send(message);
  }

  // ---- messages from TaskManagers ----

  #onMessage(m: FromTaskManager): void {
    switch (m.type) {
      case 'described':
        this.#describeRequests.get(m.requestId)?.(m.tasks);
        this.#describeRequests.delete(m.requestId);
        return;
      case 'ready':
      case 'heartbeat':
        return;
      case 'canceled':
        if (this.#cancellation?.attempt === m.attempt) this.#cancellation.answered(m.tm);
        return;
      case 'log':
        this.#log[m.level](m.message, m.fields);
        return;
      case 'deploy-failed':
        if (m.attempt === this.#attempt || m.attempt === -1) this.#onFailure(m.error);
        return;
    }
    if (m.attempt !== this.#attempt) {
      if (m.type === 'task-status' && m.positions) this.#positions.set(`${m.vertexId}:${m.subtask}`, m.positions);
      return;
    }
    switch (m.type) {
      case 'task-status':
        this.#onTaskStatus(m);
        return;
      case 'ack-checkpoint':
        this.checkpoints.receiveAck(m);
        return;
      case 'decline-checkpoint':
        this.checkpoints.receiveDecline(m);
        return;
      case 'metrics':
        for (const t of m.tasks) this.#metrics.set(`${t.vertexId}:${t.subtask}`, t);
        return;
      case 'split-request':
        this.#sourceCoordinators.get(m.vertexId)?.handleSplitRequest(m.subtask);
        return;
      case 'reader-event':
        this.#sourceCoordinators.get(m.vertexId)?.handleReaderEvent(m.subtask, m.event);
        return;
    }
  }

  #onTaskStatus(m: Extract<FromTaskManager, { type: 'task-status' }>): void {
    const key = `${m.vertexId}:${m.subtask}`;
    const entry = this.#tasks.get(key);
    if (!entry) return;
    entry.status = m.status;
    if (m.positions) this.#positions.set(key, m.positions);
    if (m.status === 'failed') {
      if (this.#armed && m.error?.name === 'InjectedFailure') this.#faults?.fired();
      this.#onFailure(m.error ?? { name: 'Error', message: 'task failed' });
      return;
    }
    if (this.#status !== 'RUNNING') return;
    const all = [...this.#tasks.values()];
    if (m.status === 'running' && all.every((t) => t.status !== 'initializing')) {
      this.checkpoints.start();
      for (const w of this.#runningWaiters.splice(0)) w.resolve();
    } else if (m.status === 'end-of-data' && all.every((t) => t.status === 'end-of-data' || t.status === 'finished')) {
      this.#endOfData();
    } else if (m.status === 'finished' && all.every((t) => t.status === 'finished')) {
      void this.#finish('FINISHED', undefined);
    }
  }

  /** Every subtask has consumed all its input: take a final checkpoint so sinks commit the rest, then finish. */
  #endOfData(): void {
    if (this.#finalCheckpoint || this.#stopping) return;
    this.#finalCheckpoint = true;
    if (!this.checkpoints.periodic) {
      this.#broadcast({ type: 'finish', attempt: this.#attempt });
      return;
    }
    const attempt = this.#attempt;
    this.checkpoints.stopPeriodic();
    // A periodic checkpoint may still be writing its state: let it end first. A second one
    // started beside it would make every keyed state copy all its entries in its synchronous
    // part (copy-on-write serves one snapshot at a time), a long pause with a large state.
    void this.checkpoints.inFlightSettled().then(() => {
      if (this.#attempt !== attempt || this.#status !== 'RUNNING' || this.#stopping) return;
      this.checkpoints.trigger({ type: 'checkpoint', force: true }).then(
        () => {
          if (this.#attempt === attempt) this.#broadcast({ type: 'finish', attempt });
        },
        (e: Error) => {
          if (this.#attempt === attempt) this.#onFailure(serializeError(new Error(`the final checkpoint failed: ${e.message}`)));
        },
      );
    });
  }

  // ---- failure and restart ----

  #onFailure(cause: SerializedError): void {
    if (isTerminal(this.#status) || this.#status === 'RESTARTING') return;
    this.#setStatus('RESTARTING');
    this.checkpoints.stop('job failover');
    const attempt = this.#attempt;
    this.#watchCancellation(attempt);
    this.#broadcast({ type: 'cancel', attempt });
    // At-most-once restarts go on from where the readers were, and so from where the enumerators were.
    if (this.plan.config['execution.checkpointing.mode'] === 'at-most-once') {
      this.#restoredCoordinators = Object.fromEntries([...this.#sourceCoordinators.values()].map((c) => [c.uid, c.snapshotState(-1)]));
    }
    void this.#closeSourceCoordinators();
    const decision = cause.unrecoverable
      ? { restart: false as const, delayMs: 0, reason: 'the error says the job cannot run as defined, so it is not restarted' }
      : this.#restart.onFailure(Date.now());
    this.exceptions.push({ timestamp: Date.now(), attempt, error: cause, restarted: decision.restart });
    if (!decision.restart) {
      this.#log.error(`job failed: ${cause.message}`, { reason: decision.reason });
      void this.#finish('FAILED', new JobFailure(this.jobId, cause, this.#restarts, decision.reason));
      return;
    }
    this.#restarts++;
    this.#log.warn(`subtask failure, restarting in ${decision.delayMs} ms: ${cause.message}`, { attempt, restarts: this.#restarts });
    this.#o.listener?.onRestart?.({ attempt: attempt + 1, cause, delayMs: decision.delayMs });
    setTimeout(() => void this.#restartJob(), decision.delayMs);
  }

  async #restartJob(): Promise<void> {
    if (isTerminal(this.#status)) return;
    try {
      // Their 'canceled' answers also follow the positions where their readers stood (at-most-once).
      await this.#cancellation?.done;
      await this.#replaceLostTaskManagers();
      // A checkpoint of the failed attempt may still be completing: it must not subsume (delete)
      // the checkpoint chosen for the restore while the new attempt reads it.
      await this.checkpoints.settled();
      const restore = this.checkpoints.periodic ? await this.#latestRestore() : undefined;
      // No checkpoints and not at-most-once: everything starts over, the enumerators too.
      if (!this.checkpoints.periodic && this.plan.config['execution.checkpointing.mode'] !== 'at-most-once') this.#restoredCoordinators = undefined;
      if (isTerminal(this.#status)) return;
      this.#deploy(restore);
    } catch (e) {
      void this.#finish('FAILED', e as Error);
    }
  }

  /** The next attempt waits until every TaskManager has stopped this one's subtasks (or is given up on). */
  #watchCancellation(attempt: number): void {
    const timeoutMs = this.plan.config['task.cancellation.timeout'];
    const live = this.#gateways.map((g) => g.index).filter((i) => !this.#lost.has(i));
    this.#cancellation = new CancellationWatch(attempt, live, timeoutMs, systemClock, (stragglers) => {
      for (const i of stragglers) this.#loseTaskManager(i, { kind: 'cancellation-timeout', timeoutMs });
    });
  }

  async #finish(status: JobStatus, error: Error | undefined): Promise<void> {
    if (isTerminal(this.#status)) return;
    this.#error = error;
    this.checkpoints.stop(`job ${status.toLowerCase()}`);
    this.#setStatus(status);
    await this.#closeSourceCoordinators();
    for (const m of this.#heartbeats.values()) m.stop();
    await Promise.all(this.#gateways.map((g) => g.terminate(this.#lost.has(g.index)).catch(() => {})));
    await (await this.#bundle)?.dispose();
    const kept = await this.#cleanupCheckpoints(status);
    this.#done({
      latestCheckpoint: kept ? this.checkpoints.store.latest()?.directory : undefined,
      jobId: this.jobId,
      status,
      error: this.#error,
      restarts: this.#restarts,
      injectedFailures: this.#faults?.made ?? 0,
      durationMs: Date.now() - this.startedAt,
    });
  }

  /** Flink's retention: finished jobs discard their checkpoints; failed jobs keep them; cancel follows the setting. */
  async #cleanupCheckpoints(status: JobStatus): Promise<boolean> {
    const retainOnCancel = this.plan.config['execution.checkpointing.externalized-checkpoint-retention'] === 'RETAIN_ON_CANCELLATION';
    const keep =
      status === 'FAILED' || (status === 'CANCELED' && retainOnCancel) || (status === 'FINISHED' && this.#o.retainCheckpointsOnFinish === true);
    // Checkpoints in a temporary directory of our own are not retained: nobody could find them.
    if (keep && (!this.#ownsJobDir || this.#o.retainCheckpointsOnFinish)) return true;
    await this.checkpoints.store.discardAll(`job ${status.toLowerCase()}`);
    if (this.#ownsJobDir) await rm(join(this.#jobDir, '..'), { recursive: true, force: true }).catch(() => {});
    return false;
  }

  /** Resolves when every subtask of the current attempt is running (rejects if the job ends first). */
  whenRunning(): Promise<void> {
    if (this.#allTasksRunning()) return Promise.resolve();
    if (isTerminal(this.#status)) return Promise.reject(new Error(`job ${this.jobId} is ${this.#status}`));
    return new Promise((resolve, reject) => this.#runningWaiters.push({ resolve, reject }));
  }

  #allTasksRunning(): boolean {
    return this.#status === 'RUNNING' && this.#tasks.size > 0 && [...this.#tasks.values()].every((t) => t.status !== 'initializing');
  }

  #setStatus(status: JobStatus): void {
    if (this.#status === status) return;
    this.#status = status;
    if (isTerminal(status)) for (const w of this.#runningWaiters.splice(0)) w.reject(new Error(`job ${this.jobId} is ${status}`));
    this.#log.info(`job ${status}`, { status });
    this.#o.listener?.onStatus?.(status);
  }
}
