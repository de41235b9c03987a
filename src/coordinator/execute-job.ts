import type { ConfigLayers, JobDefinition } from '../api/define-job.ts';
import type { Logger } from '../log/logger.ts';
import type { FaultInjectionOptions } from './fault-injector.ts';
import { JobMaster, type JobListener } from './job-master.ts';
import { loadJobModule } from './job-module.ts';
import type { CompiledJob } from './worker-bundle.ts';

export interface ExecuteJobOptions {
  /** A job definition, or the path of a job module (required for worker TaskManagers). */
  readonly job: JobDefinition | string;
  readonly args?: readonly string[];
  /** Settings that override the job's own (the command line's -D flags). */
  readonly config?: Readonly<Record<string, unknown>>;
  /** Settings the job's own override (a config file). */
  readonly configFile?: Readonly<Record<string, unknown>>;
  /** Where configFile was read from: errors about its keys name it. */
  readonly configFilePath?: string;
  /** 0: one TaskManager in this thread; N: N worker-thread TaskManagers. */
  readonly taskManagers?: number;
  readonly restoreFrom?: string;
  readonly allowNonRestoredState?: boolean;
  readonly faults?: FaultInjectionOptions;
  readonly log?: Logger;
  readonly listener?: JobListener;
  readonly jobId?: string;
  readonly retainCheckpointsOnFinish?: boolean;
}

/** Plans a job and starts its JobMaster; `master.run()` resolves with the job's end. */
export async function createJobMaster(options: ExecuteJobOptions): Promise<JobMaster> {
  const args = options.args ?? [];
  const layers: ConfigLayers = {
    ...(options.configFile ? { file: options.configFile } : {}),
    ...(options.configFilePath ? { filePath: options.configFilePath } : {}),
    ...(options.config ? { commandLine: options.config } : {}),
  };
  const taskManagers = options.taskManagers ?? 0;
  let definition: JobDefinition;
  let modulePath: string | undefined;
  let compiled: CompiledJob | undefined;
  if (typeof options.job === 'string') {
    ({ definition, modulePath, compiled } = await loadJobModule(options.job));
  } else {
    definition = options.job;
  }
  if (taskManagers > 0 && modulePath === undefined) {
    throw new TypeError('worker TaskManagers load the job in each thread: pass the job module path, not a definition');
  }
  const plan = await definition.plan(args, layers, modulePath === undefined ? {} : { modulePath });
  for (const w of plan.jobGraph.warnings) options.log?.warn(w);
  return new JobMaster({
    plan,
    deployment: taskManagers > 0 ? { kind: 'worker-threads', taskManagers, modulePath: modulePath!, args, layers, ...(compiled ? { compiled } : {}) } : { kind: 'in-thread' },
    ...(compiled ? { compiled } : {}),
    ...(options.restoreFrom !== undefined ? { restoreFrom: options.restoreFrom } : {}),
    ...(options.allowNonRestoredState !== undefined ? { allowNonRestoredState: options.allowNonRestoredState } : {}),
    ...(options.faults ? { faults: options.faults } : {}),
    ...(options.log ? { log: options.log } : {}),
    ...(options.listener ? { listener: options.listener } : {}),
    ...(options.jobId ? { jobId: options.jobId } : {}),
    ...(options.retainCheckpointsOnFinish ? { retainCheckpointsOnFinish: true } : {}),
  });
}

/** Runs a job to its end. */
export async function executeJob(options: ExecuteJobOptions) {
  const master = await createJobMaster(options);
  return master.run();
}
