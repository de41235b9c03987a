import type { JobPlan } from '../api/define-job.ts';
import type { JobGraph } from '../graph/job-graph.ts';
import type { Logger } from '../log/logger.ts';
import { silentLogger } from '../log/logger.ts';
import { type SerializedError, serializeError } from '../rpc/serialized-error.ts';
import type { TaskMetrics } from '../rpc/job-master-gateway.ts';
import type { TaskStatus } from '../network/task-status.ts';
import { sourcePositions, type Restore } from './checkpoint-restorer.ts';
import type { CheckpointCoordinator } from './checkpoint-coordinator.ts';
import type { TaskDescriptions } from './checkpoint-coordinator-deps.ts';
import { createJobServices, type JobServices } from './job-services.ts';
import type { CompletedCheckpoint } from './completed-checkpoint.ts';
import { FaultInjector, type PlannedFailure } from './fault-injector.ts';
import { JobFailure } from './job-failure.ts';
import type { ExceptionRecord, JobResult } from './job-result.ts';
import { newJobId } from './job-id.ts';
import { Created } from './job-states/created.ts';
import { Finishing } from './job-states/finishing.ts';
import type { JobContext, JobState } from './job-states/job-state.ts';
import { Restarting } from './job-states/restarting.ts';
import { Running } from './job-states/running.ts';
import { StoppingWithSavepoint } from './job-states/stopping-with-savepoint.ts';
import { Terminal } from './job-states/terminal.ts';
import { isTerminal, jobEndReason, type EndStatus, type JobStatus } from './job-status.ts';
import { createRestartStrategy } from './restart-strategy.ts';
import { applyRetention } from './checkpoint-retention.ts';
import { SavepointError } from './savepoint-error.ts';
import { ManualTriggers } from './manual-triggers.ts';
import { JobSuspendedError } from './job-suspended-error.ts';
import { SHUTDOWN } from '../lifecycle/service.ts';
import type { JobMasterOptions } from './job-master-options.ts';
import { JobMasterEndpoint } from './job-master-endpoint.ts';
import type { TaskRates } from './task-rates.ts';

export type { Deployment } from './slot-executor-pool.ts';
export type { JobListener } from './job-listener.ts';
export type { ExceptionRecord, JobResult } from './job-result.ts';
export type { JobMasterOptions } from './job-master-options.ts';

/**
 * The JobManager of one job (Flink's JobMaster with its scheduler): its lifecycle is one state
 * object at a time (job-states/), its collaborators deploy subtasks onto TaskManagers, coordinate
 * checkpoints and sources, and choose what a restart restores from. It routes the TaskManagers'
 * messages to them and keeps the public operations.
 */
export class JobMaster {
  readonly jobId: string;
  /** @internal The execution plan's graph (the dashboard, REST and tests read it). */
  readonly graph: JobGraph;
  readonly plan: JobPlan;
  /** @internal The checkpoint coordinator (its statistics are the REST API's checkpoints). */
  readonly checkpoints: CheckpointCoordinator;
  readonly exceptions: ExceptionRecord[] = [];
  readonly startedAt = Date.now();
  readonly #o: JobMasterOptions;
  readonly #log: Logger;
  readonly #ctx: JobContext;
  readonly #faults: FaultInjector | undefined;
  readonly #result: Promise<JobResult>;
  readonly #triggers: ManualTriggers;
  /** Settles when the last stop-with-savepoint request has been taken or refused: requests are taken in the order they came. */
  #stopTurn: Promise<void> = Promise.resolve();
  readonly #endpoint: JobMasterEndpoint;
  #done!: (result: JobResult) => void;
  #state: JobState;
  #attempt = -1;
  #restarts = 0;
  #runningSince: number | undefined;
  #armed: PlannedFailure | undefined;
  #runningWaiters: Array<{ resolve: () => void; reject: (e: Error) => void }> = [];

  /** @internal Made by createJobMaster, executeJob and the cluster's dispatcher. */
  constructor(options: JobMasterOptions) {
    this.#o = options;
    this.#attempt = (options.firstAttempt ?? 0) - 1;
    this.jobId = options.jobId ?? newJobId();
    this.plan = options.plan;
    this.graph = options.plan.jobGraph;
    this.#log = (options.log ?? silentLogger).child({ jobId: this.jobId });
    this.#faults = options.faults && options.faults.failures > 0 ? new FaultInjector(options.faults) : undefined;
    this.#result = new Promise((resolve) => (this.#done = resolve));
    const services = createJobServices({
      jobId: this.jobId,
      plan: this.plan,
      deployment: options.deployment,
      log: this.#log,
      listener: options.listener,
      attempt: () => this.#attempt,
      onMessage: (m) => this.#endpoint.receive(m),
      fail: (e) => this.#state.onFailure(serializeError(e)),
      onRestored: (r) => this.#announceRestore(r),
      ...(options.publishCheckpoint ? { publishCheckpoint: options.publishCheckpoint } : {}),
      ...(options.checkpointIdCounter ? { checkpointIdCounter: options.checkpointIdCounter } : {}),
    });
    this.checkpoints = services.checkpoints;
    this.#ctx = this.#context(services);
    this.#state = new Created(this.#ctx);
    this.#triggers = new ManualTriggers({ jobId: this.jobId, plan: this.plan, storage: services.storage, checkpoints: this.checkpoints, status: () => this.status });
    const injectedFailed = () => void (this.#armed && this.#faults?.fired());
    this.#endpoint = new JobMasterEndpoint({ state: () => this.#state, attempt: () => this.#attempt, log: this.#log, ctx: this.#ctx, checkpoints: this.checkpoints, injectedFailed });
  }

  get status(): JobStatus {
    return this.#state.status;
  }

  get restarts(): number {
    return this.#restarts;
  }

  /** When the job last went RUNNING (ms since the epoch); undefined while it is not RUNNING. */
  get runningSince(): number | undefined {
    return this.status === 'RUNNING' ? this.#runningSince : undefined;
  }

  get attempt(): number {
    return this.#attempt;
  }

  get checkpointDirectory(): string {
    return this.#ctx.storage.jobLocation;
  }

  /** Starts the job; resolves when it reaches a terminal state. */
  async run(): Promise<JobResult> {
    if (this.#state instanceof Created) await this.#state.start();
    return this.#result;
  }

  /** A savepoint of the running job (see ManualTriggers); savepoints are never deleted by weir. */
  triggerSavepoint(dir?: string): Promise<CompletedCheckpoint> {
    return this.#triggers.savepoint(dir);
  }

  /** A checkpoint now, besides the periodic ones (Flink 1.19's manual trigger). */
  triggerCheckpoint(): Promise<CompletedCheckpoint> {
    return this.#triggers.checkpoint();
  }

  /** Stop with savepoint (see StoppingWithSavepoint); with drain, sources end their input first. */
  async stopWithSavepoint(dir: string | undefined, drain = false): Promise<CompletedCheckpoint> {
    // Resolving the target awaits storage: without the turn, a second request could overtake the first.
    const turn = this.#stopTurn;
    let taken!: () => void;
    this.#stopTurn = new Promise((resolve) => (taken = resolve));
    let stopped: Promise<CompletedCheckpoint>;
    try {
      await turn;
      const targetDir = await this.#triggers.savepointTarget(dir);
      const state = this.#state;
      if (!state.stopWithSavepoint) throw new SavepointError(this.jobId, `the job cannot be stopped with a savepoint now: it is ${state.phase ?? this.status}`);
      stopped = state.stopWithSavepoint(targetDir, drain);
    } finally {
      taken();
    }
    return stopped;
  }

  /** Cancels the job (ungraceful, like `flink cancel`). */
  async cancel(): Promise<JobResult> {
    this.#state.cancel();
    return this.#result;
  }

  /**
   * Stops the job because this JobManager no longer leads (Flink's JobMaster suspend): whatever
   * its state, the subtasks are cancelled and the job ends SUSPENDED, its checkpoints kept for
   * the leader that runs it on.
   */
  async suspend(reason: string): Promise<JobResult> {
    if (!isTerminal(this.status)) void this.#finish('SUSPENDED', new JobSuspendedError(this.jobId, reason));
    return this.#result;
  }

  result(): Promise<JobResult> {
    return this.#result;
  }

  taskStatuses(): ReadonlyArray<{ vertexId: string; subtask: number; status: TaskStatus; taskManager: number }> {
    return [...this.#ctx.execution.entries()].map((t) => ({ vertexId: t.vertex.id, subtask: t.subtask, status: t.status, taskManager: t.taskManager }));
  }

  /** @internal Latest figures of each subtask (records in/out, backpressure, what it is doing): the REST API's. */
  taskMetrics(): readonly TaskMetrics[] {
    return this.#ctx.execution.metrics();
  }

  /** @internal A subtask's records and bytes per second over the last 60 s of this attempt, and where its time went over the last 5 s: the REST API's. */
  taskRates(vertexId: string, subtask: number): TaskRates | undefined {
    return this.#ctx.execution.ratesOf(vertexId, subtask);
  }

  /** Records read by the sources and records that reached the sinks, over this attempt. */
  recordCounts(): { readIn: number; writtenOut: number } {
    return this.#ctx.execution.recordCounts();
  }

  /** The host of a TaskManager of the job ('localhost' for threads of this process). */
  hostOf(taskManager: number): string {
    return this.#ctx.pool.hostOf(taskManager);
  }

  /** The resource id of a cluster TaskManager process the job's TaskManager `taskManager` is a slot of (undefined for threads). */
  taskManagerIdOf(taskManager: number): string | undefined {
    return this.#ctx.pool.taskManagerIdOf(taskManager);
  }

  /** Where a TaskManager of the job runs, for a cluster's slots ("slot 1 of TaskManager tm-a at 10.0.0.2:4001"). */
  whereIs(taskManager: number): string | undefined {
    return this.#ctx.pool.whereIs(taskManager);
  }

  /** @internal Asks every TaskManager what its subtasks are doing; TaskManagers that do not answer in time are named (the REST API's). */
  describeTasks(timeoutMs = 1000): Promise<TaskDescriptions> {
    return this.#ctx.pool.describe(timeoutMs);
  }

  /** The split enumerators' progress figures, by source vertex id. */
  sourceCoordinatorMetrics(): Record<string, Record<string, number>> {
    return this.#ctx.sources.metrics();
  }

  /** Resolves when every subtask of the current attempt is running (rejects if the job ends first). */
  whenRunning(): Promise<void> {
    if (this.#allTasksRunning()) return Promise.resolve();
    if (isTerminal(this.status)) return Promise.reject(new Error(`job ${this.jobId} is ${this.status}`));
    return new Promise((resolve, reject) => this.#runningWaiters.push({ resolve, reject }));
  }

  #allTasksRunning(): boolean {
    return this.status === 'RUNNING' && this.#ctx.execution.every((s) => s !== 'initializing');
  }

  #announceRestore(restore: Restore): void {
    this.#o.listener?.onRestored?.({ checkpointId: restore.checkpointId, path: restore.location, isSavepoint: restore.isSavepoint, sourcePositions: sourcePositions(this.graph, restore) });
  }

  // ---- the states' context ----

  #context(parts: JobServices): JobContext {
    const jm = this;
    const ctx: JobContext = {
      ...parts,
      jobId: this.jobId,
      plan: this.plan,
      log: this.#log,
      restartStrategy: createRestartStrategy(this.plan.config),
      get attempt() {
        return jm.#attempt;
      },
      isCurrent: (state) => this.#state === state,
      restoreOriginal: () => this.#restoreOriginal(),
      endStatus: () => (isTerminal(this.status) ? this.status : undefined),
      deploy: (restore) => this.#deploy(restore),
      goToRunning: () => this.#transition(new Running(ctx)),
      goToRestarting: (cause, delayMs) => this.#goToRestarting(cause, delayMs),
      goToFinishing: () => this.#transition(new Finishing(ctx, this.checkpoints.periodic)),
      goToStoppingWithSavepoint: (targetDir, drain) => {
        const stopping = new StoppingWithSavepoint(ctx, targetDir, drain);
        this.#transition(stopping);
        return stopping.savepoint;
      },
      finish: (status, error) => void this.#finish(status, error),
      fail: (cause, reason) => {
        this.exceptions.push({ timestamp: Date.now(), attempt: this.#attempt, error: cause, restarted: false });
        this.#log.error(`job failed: ${cause.message}`, { reason });
        void this.#finish('FAILED', new JobFailure(this.jobId, cause, this.#restarts, reason));
      },
      allRunning: () => {
        this.checkpoints.startScheduler();
        for (const w of this.#runningWaiters.splice(0)) w.resolve();
      },
    };
    return ctx;
  }

  async #restoreOriginal(): Promise<Restore | undefined> {
    if (!this.#o.restoreFrom) return undefined;
    const restore = await this.#ctx.restorer.fromPath(this.#o.restoreFrom, this.#o.allowNonRestoredState ?? false);
    await this.checkpoints.setNextId(restore.checkpointId + 1);
    return restore;
  }

  async #deploy(restore: Restore | undefined): Promise<void> {
    const { execution, deployer, pool, sources } = this.#ctx;
    const from = this.#state;
    const attempt = ++this.#attempt;
    execution.reset(deployer.placement());
    this.#ctx.alignment.reset(attempt);
    this.#armed = this.#faults?.next(this.graph);
    const splits = await sources.splits(execution.positions, attempt > 0);
    await sources.start(attempt);
    // One lost while this attempt was being prepared would never run its subtasks: replace it first.
    while (pool.hasLost && this.#state === from) await pool.replaceLost();
    if (this.#state !== from || attempt !== this.#attempt) return;
    this.#transition(new Running(this.#ctx));
    deployer.deploy({ attempt, jobId: this.jobId, splits, restore: restore?.assigned, armed: this.#armed });
    this.#log.info(`deployed attempt ${attempt}`, { attempt, tasks: execution.size, taskManagers: pool.size });
  }

  #goToRestarting(cause: SerializedError, delayMs: number): void {
    const attempt = this.#attempt;
    this.checkpoints.stopScheduler('job failover');
    this.#ctx.sources.keepForRestart();
    void this.#ctx.sources.stop({ code: 'replaced' });
    this.exceptions.push({ timestamp: Date.now(), attempt, error: cause, restarted: true });
    this.#restarts++;
    this.#log.warn(`subtask failure, restarting in ${delayMs} ms: ${cause.message}`, { attempt, restarts: this.#restarts });
    this.#o.listener?.onRestart?.({ attempt: attempt + 1, cause, delayMs });
    this.#transition(new Restarting(this.#ctx, delayMs));
  }

  async #finish(status: EndStatus, error: Error | undefined): Promise<void> {
    if (isTerminal(this.status)) return;
    // A failure that never went through the restart strategy (the first attempt could not start): its story is read too.
    if (status === 'FAILED' && error && !(error instanceof JobFailure)) {
      this.exceptions.push({ timestamp: Date.now(), attempt: this.#attempt, error: serializeError(error), restarted: false });
      this.#log.error(`job failed: ${error.message}`);
    }
    const settled = this.checkpoints.stop(jobEndReason(status, error));
    this.#transition(new Terminal(status));
    await settled;
    await this.#ctx.sources.stop(jobEndReason(status, error));
    await this.#ctx.pool.stop(status === 'FAILED' && error ? { code: 'failed', cause: error } : SHUTDOWN);
    await this.#o.compiled?.discard();
    const kept = await applyRetention(status, { config: this.plan.config, storage: this.#ctx.storage, store: this.checkpoints.store, retainOnFinish: this.#o.retainCheckpointsOnFinish === true });
    await this.#ctx.storage.close?.().catch((e: Error) => this.#log.warn(`closing the checkpoint storage failed: ${e.message}`));
    this.#done({
      latestCheckpoint: kept ? this.checkpoints.store.latest()?.directory : undefined,
      jobId: this.jobId,
      status,
      error,
      restarts: this.#restarts,
      injectedFailures: this.#faults?.made ?? 0,
      durationMs: Date.now() - this.startedAt,
    });
  }

  #transition(state: JobState): void {
    const before = this.#state.status;
    this.#state = state;
    if (before === state.status) return;
    if (state.status === 'RUNNING') this.#runningSince = Date.now();
    if (isTerminal(state.status)) for (const w of this.#runningWaiters.splice(0)) w.reject(new Error(`job ${this.jobId} is ${state.status}`));
    this.#log.info(`job ${state.status}`, { status: state.status });
    this.#o.listener?.onStatus?.(state.status);
  }
}
