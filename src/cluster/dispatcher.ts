import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { isJobDefinition, type ConfigLayers, type JobDefinition } from '../api/define-job.ts';
import { JobModuleError } from '../api/job-module-error.ts';
import { JobMaster } from '../coordinator/job-master.ts';
import { newJobId } from '../coordinator/job-id.ts';
import { lowestLevel, type Logger } from '../log/logger.ts';
import type { BlobStore } from './blob-store.ts';
import { registerEngineImports } from './engine-imports.ts';
import { JobSlots } from './job-slots.ts';
import type { JobStore } from './job-store.ts';
import type { ResourceManager } from './resource-manager.ts';
import type { HighAvailabilityServices } from '../ha/high-availability-services.ts';
import type { Leadership } from '../ha/leader-election.ts';
import type { SubmittedJob } from '../ha/job-graph-store.ts';
import type { BlobKey } from '../ha/blob-store.ts';
import { isGloballyTerminal, isTerminal } from '../coordinator/job-status.ts';
import { NotLeaderError } from './not-leader-error.ts';
import { JobSuspendedError } from '../coordinator/job-suspended-error.ts';
import { LeaderCheckpointIdCounter } from './leader-checkpoint-id-counter.ts';

/** Flink's JarRunRequestBody, with weir's config file layer beside its flinkConfiguration. */
export interface JarRunRequest {
  readonly programArgs?: string | null;
  readonly programArgsList?: readonly string[] | null;
  readonly parallelism?: number | null;
  readonly savepointPath?: string | null;
  readonly allowNonRestoredState?: boolean | null;
  /** Flink's claimMode (NO_CLAIM | CLAIM): execution.state-recovery.claim-mode for this run. */
  readonly claimMode?: string | null;
  readonly entryClass?: string | null;
  readonly jobId?: string | null;
  /** Settings over the job's own (the client's -D flags and options). */
  readonly flinkConfiguration?: Readonly<Record<string, unknown>> | null;
  /** weir: the client's --config file, below the job's own settings, and where it was read (named in errors). */
  readonly configFile?: Readonly<Record<string, unknown>> | null;
  readonly configFilePath?: string | null;
}

/** A submission the JobManager cannot run: the bundle does not load, or its builder throws (HTTP 400). */
export class SubmissionError extends Error {
  readonly statusCode = 400;

  constructor(message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'SubmissionError';
  }
}

export interface DispatcherOptions {
  readonly bundles: BlobStore;
  readonly store: JobStore;
  readonly resources: ResourceManager;
  /** The JobManager's own settings (its --config file and -D), the cluster's defaults for jobs. */
  readonly defaults: Readonly<Record<string, unknown>>;
  readonly slotRequestTimeoutMs: number;
  readonly log: Logger;
  /**
   * High availability: submissions and bundles go to the HA stores under the current leadership,
   * completed checkpoints are published as fenced pointers, and an ended job leaves a result.
   */
  readonly ha?: DispatcherHa;
}

export interface DispatcherHa {
  readonly services: HighAvailabilityServices;
  /** The current leadership, or undefined while this JobManager is a standby. */
  readonly leadership: () => Leadership | undefined;
  /** Where the leader is, for the refusal a standby gives. */
  readonly leaderAddress: () => string | undefined;
  readonly retainedCheckpoints: number;
}

/** Attempt numbers a leader may use for one job before they would reach the next epoch's. */
const ATTEMPTS_PER_EPOCH = 1_000_000;

/** How a job came to this dispatcher: submitted by a client, or recovered from the HA stores by a new leader. */
type Origin = { readonly kind: 'submitted' } | { readonly kind: 'recovered'; readonly leadership: Leadership; readonly job: SubmittedJob };

/**
 * Runs submitted jobs (Flink's Dispatcher): loads the bundle here, where the JobMaster plans and
 * coordinates the job, and starts a JobMaster whose TaskManagers are slots of the cluster, each
 * loading the same bundle by its hash.
 */
export class Dispatcher {
  readonly #o: DispatcherOptions;

  constructor(o: DispatcherOptions) {
    this.#o = o;
    registerEngineImports();
  }

  async submit(hash: string, request: JarRunRequest): Promise<JobMaster> {
    return this.#start(hash, request, { kind: 'submitted' });
  }

  /**
   * A new leader's step for a job it found in the job graph store (already claimed for its epoch):
   * its bundle comes from the HA blob store, and it starts from `restoreFrom` (the latest
   * completed checkpoint's pointer, else the submission's own savepoint).
   */
  async recover(leadership: Leadership, job: SubmittedJob, restoreFrom: string | undefined): Promise<JobMaster> {
    const ha = this.#o.ha!;
    const code = await ha.services.blobStore.get(job.bundle);
    if (!code) throw new SubmissionError(`job ${job.jobId} (${job.name}): its bundle ${job.bundle} is missing from ${ha.services.description}`);
    const stored = this.#o.bundles.put(code, job.name);
    const request = { ...(job.config as JarRunRequest), jobId: job.jobId, programArgsList: job.args, savepointPath: restoreFrom ?? null };
    return this.#start(stored.hash, request, { kind: 'recovered', leadership, job });
  }

  /** Whether a JobMaster of this dispatcher runs the job now. */
  isRunning(jobId: string): boolean {
    const m = this.#o.store.get(jobId);
    return m !== undefined && !isTerminal(m.status);
  }

  /** Leadership is lost: the running jobs end SUSPENDED, keeping their checkpoints (a leader runs them on). */
  async suspendAll(reason: string): Promise<void> {
    const running = this.#o.store.list().filter((m) => !isTerminal(m.status));
    for (const m of running) this.#o.log.warn(`job ${m.jobId} suspended: ${reason}`, { jobId: m.jobId });
    await Promise.all(running.map((m) => m.suspend(reason).catch(() => {})));
  }

  async #start(hash: string, request: JarRunRequest, origin: Origin): Promise<JobMaster> {
    const { bundles, store, log, ha } = this.#o;
    const leadership = origin.kind === 'recovered' ? origin.leadership : ha?.leadership();
    if (ha && !leadership) throw new NotLeaderError(ha.leaderAddress());
    const stored = bundles.list().find((b) => b.hash === hash);
    if (!stored) throw Object.assign(new Error(`no uploaded job ${hash}`), { statusCode: 404 });
    const name = stored.name;
    const args = request.programArgsList ?? splitArgs(request.programArgs ?? '');
    const commandLine: Record<string, unknown> = { ...(request.flinkConfiguration ?? {}) };
    if (typeof request.parallelism === 'number' && request.parallelism > 0) commandLine['parallelism.default'] = request.parallelism;
    if (typeof request.claimMode === 'string') commandLine['execution.state-recovery.claim-mode'] = request.claimMode;
    const layers: ConfigLayers = {
      file: { ...this.#o.defaults, ...(request.configFile ?? {}) },
      ...(request.configFilePath ? { filePath: request.configFilePath } : {}),
      commandLine,
    };
    let definition: JobDefinition;
    try {
      const mod = (await import(pathToFileURL(stored.path).href)) as { default?: unknown };
      if (!isJobDefinition(mod.default)) throw new JobModuleError(name, 'its default export is not a job: write `export default defineJob((env, args) => { ... })`');
      definition = mod.default;
    } catch (e) {
      throw new SubmissionError(e instanceof JobModuleError ? e.message : `job module ${name}: failed to load on the JobManager: ${(e as Error).message}`, e);
    }
    let plan;
    try {
      plan = await definition.plan(args, layers, { modulePath: name });
    } catch (e) {
      throw new SubmissionError((e as Error).message, e);
    }
    const jobId = request.jobId ?? newJobId();
    const existing = store.get(jobId);
    // This JobManager led the job once and suspended it; leading again, it runs it on.
    if (existing && existing.status === 'SUSPENDED' && origin.kind === 'recovered') store.remove(existing);
    else if (existing) throw new SubmissionError(`a job with id ${jobId} exists`);
    if (ha && leadership && origin.kind === 'submitted') {
      // Before the job runs: a new leader must find every job this one accepted.
      const bundle: BlobKey = await ha.services.blobStore.put(readFileSync(stored.path));
      const { jobId: _id, savepointPath, programArgs: _a, programArgsList: _l, ...config } = request;
      await ha.services.jobGraphStore.putJob(leadership, {
        jobId,
        name,
        bundle,
        args,
        config: config as Record<string, unknown>,
        submittedAt: Date.now(),
        ...(savepointPath ? { restoreFrom: savepointPath } : {}),
      });
    }
    const pointers = ha && leadership ? ha.services.completedCheckpointStore(jobId, ha.retainedCheckpoints) : undefined;
    const jobLog = log.child({ jobId });
    const logLevel = lowestLevel(log);
    const master: JobMaster = new JobMaster({
      plan,
      jobId,
      deployment: {
        kind: 'cluster',
        slots: new JobSlots({
          jobId,
          resources: this.#o.resources,
          init: { jobId, bundle: hash, jobModulePath: name, args, layers: layers as never, ...(logLevel ? { logLevel } : {}) },
          taskManagers: Math.max(...plan.jobGraph.vertices.map((v) => v.parallelism)),
          timeoutMs: this.#o.slotRequestTimeoutMs,
          log: jobLog,
          ...(leadership ? { leaderEpoch: leadership.epoch } : {}),
        }),
      },
      ...(request.savepointPath ? { restoreFrom: request.savepointPath } : {}),
      allowNonRestoredState: request.allowNonRestoredState ?? false,
      // Epochs only grow: each leader's attempts of a job are numbered apart from every earlier leader's.
      ...(leadership ? { firstAttempt: leadership.epoch * ATTEMPTS_PER_EPOCH } : {}),
      ...(pointers && leadership
        ? {
            publishCheckpoint: async (c) => {
              await pointers.addCheckpoint(leadership, { checkpointId: c.id, location: c.directory, type: c.type, triggeredAt: c.triggeredAt, completedAt: c.completedAt, stateBytes: c.stateBytes });
            },
            checkpointIdCounter: new LeaderCheckpointIdCounter(ha!.services.checkpointIdCounter(jobId), leadership, ha!.services.description),
          }
        : {}),
      log: jobLog,
      listener: {
        onRestored: ({ checkpointId, path, isSavepoint }) => jobLog.info(`restored from ${isSavepoint ? 'savepoint' : 'checkpoint'} ${checkpointId}: ${path}`, { checkpointId }),
        onRestart: ({ attempt, cause, delayMs }) => jobLog.warn(`restarting (attempt ${attempt}) in ${delayMs} ms: ${cause.message}`, { attempt }),
      },
    });
    for (const w of plan.jobGraph.warnings) jobLog.warn(w);
    store.add(master);
    log.info(`job ${master.jobId} (${plan.name}) submitted from ${name}`, { jobId: master.jobId, bundle: hash });
    void master.run().then(async (r) => {
      log.info(`job ${r.jobId} ${r.status}${r.error ? `: ${r.error instanceof JobSuspendedError ? r.error.reason : r.error.message}` : ''}`, { jobId: r.jobId, status: r.status });
      if (ha && leadership && isGloballyTerminal(r.status)) await this.#globallyTerminal(leadership, { ...r, status: r.status }).catch((e: Error) => log.warn(`job ${r.jobId}: its HA data stays (a new leader cleans it up): ${e.message}`, { jobId: r.jobId }));
    });
    return master;
  }

  /** FLIP-194: the result first (so a new leader does not run the job again), then the cleanup, then clean. */
  async #globallyTerminal(leadership: Leadership, r: { jobId: string; status: 'FINISHED' | 'FAILED' | 'CANCELED'; error?: { message: string } }): Promise<void> {
    const services = this.#o.ha!.services;
    const status = r.status;
    await services.jobResultStore.createDirtyResult(leadership, { jobId: r.jobId, status, finishedAt: Date.now(), ...(r.error ? { error: r.error.message } : {}) });
    this.#o.log.info(`job ${r.jobId}: result ${status} recorded; cleaning up its HA data`, { jobId: r.jobId });
    await services.globalCleanup(leadership, r.jobId);
    await services.jobResultStore.markResultAsClean(leadership, r.jobId);
  }
}

/** Flink's programArgs: one string, split at spaces, with single or double quotes keeping a part whole. */
export function splitArgs(s: string): string[] {
  const out: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g;
  for (let m = re.exec(s); m; m = re.exec(s)) out.push(m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : (m[2] ?? m[3]!));
  return out;
}
