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

/** Flink's JarRunRequestBody, with weir's config file layer beside its flinkConfiguration. */
export interface JarRunRequest {
  readonly programArgs?: string | null;
  readonly programArgsList?: readonly string[] | null;
  readonly parallelism?: number | null;
  readonly savepointPath?: string | null;
  readonly allowNonRestoredState?: boolean | null;
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
}

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
    const { bundles, store, log } = this.#o;
    const stored = bundles.list().find((b) => b.hash === hash);
    if (!stored) throw Object.assign(new Error(`no uploaded job ${hash}`), { statusCode: 404 });
    const name = stored.name;
    const args = request.programArgsList ?? splitArgs(request.programArgs ?? '');
    const commandLine: Record<string, unknown> = { ...(request.flinkConfiguration ?? {}) };
    if (typeof request.parallelism === 'number' && request.parallelism > 0) commandLine['parallelism.default'] = request.parallelism;
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
    if (store.get(jobId)) throw new SubmissionError(`a job with id ${jobId} exists`);
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
        }),
      },
      ...(request.savepointPath ? { restoreFrom: request.savepointPath } : {}),
      allowNonRestoredState: request.allowNonRestoredState ?? false,
      log: jobLog,
      listener: {
        onRestored: ({ checkpointId, path, isSavepoint }) => jobLog.info(`restored from ${isSavepoint ? 'savepoint' : 'checkpoint'} ${checkpointId}: ${path}`, { checkpointId }),
        onRestart: ({ attempt, cause, delayMs }) => jobLog.warn(`restarting (attempt ${attempt}) in ${delayMs} ms: ${cause.message}`, { attempt }),
      },
    });
    for (const w of plan.jobGraph.warnings) jobLog.warn(w);
    store.add(master);
    log.info(`job ${master.jobId} (${plan.name}) submitted from ${name}`, { jobId: master.jobId, bundle: hash });
    void master.run().then((r) => log.info(`job ${r.jobId} ${r.status}${r.error ? `: ${r.error.message}` : ''}`, { jobId: r.jobId, status: r.status }));
    return master;
  }
}

/** Flink's programArgs: one string, split at spaces, with single or double quotes keeping a part whole. */
export function splitArgs(s: string): string[] {
  const out: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g;
  for (let m = re.exec(s); m; m = re.exec(s)) out.push(m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : (m[2] ?? m[3]!));
  return out;
}
