import { resolve } from 'node:path';
import { createJobMaster } from '../coordinator/execute-job.ts';
import type { JobListener, JobResult } from '../coordinator/job-master.ts';
import { formatDuration } from '../config/duration.ts';
import { createLogger, type LogLevel } from '../log/logger.ts';
import { nonEmpty, parseDynamicProperties, readConfigFile } from './config-file.ts';
import { ProgressLine } from './progress-line.ts';
import { registerJob } from './job-registry.ts';
import { startRestServer } from '../rest/rest-server.ts';
import { registerJobTaskManagers } from '../rest/job-task-managers.ts';
import { resolveLocation } from '../checkpoint/checkpoint-location.ts';
import { SHUTDOWN } from '../lifecycle/service.ts';

export interface RunOptions {
  readonly parallelism?: string;
  readonly taskManagers?: string;
  readonly checkpointDir?: string;
  readonly mode?: string;
  readonly define?: string[];
  readonly config?: string;
  readonly fromSavepoint?: string;
  readonly allowNonRestoredState?: boolean;
  readonly claimMode?: string;
  readonly allowDuplicatingFallback?: boolean;
  readonly injectFailures?: string;
  readonly seed?: string;
  readonly injectFailuresIn?: string;
  /** MIN-MAX: each failure strikes after a random number of its subtask's records in this range. */
  readonly injectFailuresAfter?: string;
  readonly verbose?: boolean;
  readonly unaligned?: boolean;
  readonly alignedTimeout?: string;
  readonly name?: string;
}

/** The settings layer the command line makes: its flags and -D properties win over the job's own. */
export function commandLineConfig(o: RunOptions): Record<string, unknown> {
  const layer: Record<string, unknown> = parseDynamicProperties(o.define ?? []);
  if (o.parallelism !== undefined) layer['parallelism.default'] = nonEmpty('-p', 'parallelism.default', o.parallelism);
  // resolve('') would be the working directory.
  if (o.checkpointDir !== undefined) layer['execution.checkpointing.dir'] = resolveLocation(nonEmpty('--checkpoint-dir', 'execution.checkpointing.dir', o.checkpointDir));
  if (o.mode !== undefined) layer['execution.checkpointing.mode'] = o.mode;
  if (o.claimMode !== undefined) layer['execution.state-recovery.claim-mode'] = o.claimMode;
  if (o.allowDuplicatingFallback) layer['execution.checkpointing.fallback-past-committed'] = 'allow';
  if (o.name !== undefined) layer['pipeline.name'] = nonEmpty('--name', 'pipeline.name', o.name);
  if (o.unaligned || o.alignedTimeout !== undefined) layer['execution.checkpointing.unaligned.enabled'] = true;
  if (o.alignedTimeout !== undefined) {
    layer['execution.checkpointing.aligned-checkpoint-timeout'] = nonEmpty('--aligned-timeout', 'execution.checkpointing.aligned-checkpoint-timeout', o.alignedTimeout);
  }
  return layer;
}

export function wholeNumber(text: string | undefined, flag: string, fallback: number): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`${flag} expects a whole number, got '${text}'`);
  return n;
}

/** `--inject-failures-after MIN-MAX` (or one number): the range of records a planned failure waits for. */
function recordRange(text: string | undefined): { minRecords?: number; maxRecords?: number } {
  if (text === undefined) return {};
  const m = /^(\d+)(?:-(\d+))?$/.exec(text.trim());
  if (!m || (m[2] !== undefined && Number(m[2]) < Number(m[1]))) throw new UsageError(`--inject-failures-after expects MIN-MAX records (e.g. 200-2000), got '${text}'`);
  return { minRecords: Number(m[1]), maxRecords: Number(m[2] ?? m[1]) };
}

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** `weir run`: runs a job in the foreground until it finishes, fails or is cancelled (Ctrl-C). */
export async function runCommand(job: string, jobArgs: readonly string[], o: RunOptions): Promise<number> {
  const tty = process.stderr.isTTY;
  const level: LogLevel = o.verbose ? 'debug' : tty ? 'warn' : 'info';
  const log = createLogger({ level });
  const progress: { line?: ProgressLine } = {};
  const say = (text: string) => {
    progress.line?.clear();
    process.stderr.write(text + '\n');
  };
  const listener: JobListener = {
    onRestart: ({ attempt, cause, delayMs }) => say(`restarting (attempt ${attempt}) in ${formatDuration(delayMs)}: ${cause.message}`),
    onRestored: ({ checkpointId, path, isSavepoint }) => say(`restored from ${isSavepoint ? 'savepoint' : 'checkpoint'} ${checkpointId}: ${path}`),
  };
  const faults =
    o.injectFailures !== undefined
      ? {
          failures: wholeNumber(o.injectFailures, '--inject-failures', 0),
          seed: wholeNumber(o.seed, '--seed', 1),
          ...(o.injectFailuresIn !== undefined ? { vertexNameContains: o.injectFailuresIn } : {}),
          ...recordRange(o.injectFailuresAfter),
        }
      : undefined;
  const master = await createJobMaster({
    job,
    args: jobArgs,
    config: commandLineConfig(o),
    ...(o.config ? { configFile: readConfigFile(o.config), configFilePath: resolve(o.config) } : {}),
    taskManagers: wholeNumber(o.taskManagers, '--task-managers', 0),
    ...(o.fromSavepoint ? { restoreFrom: o.fromSavepoint } : {}),
    allowNonRestoredState: o.allowNonRestoredState ?? false,
    ...(faults ? { faults } : {}),
    log,
    listener,
  });
  process.stdout.write(`Job ID: ${master.jobId}\n`);
  const config = master.plan.config;
  const rest = await startRestServer({
    master,
    host: config['rest.bind-address'],
    port: config['rest.port'],
    token: config['rest.token'],
    tokenRequiredForReads: config['rest.token-required-for-reads'],
    extend: (app) => registerJobTaskManagers(app, master),
    log,
  });
  const unregister = registerJob({ jobId: master.jobId, url: rest.url, pid: process.pid, startedAt: Date.now() });
  say(`REST: ${rest.url} (dashboard: ${rest.url}/)`);
  for (const w of master.graph.warnings) say(`warning: ${w}`);
  progress.line = new ProgressLine(master);
  progress.line.start();
  const onSigint = () => {
    say('cancelling (Ctrl-C again to exit at once)');
    process.off('SIGINT', onSigint);
    void master.cancel();
  };
  process.on('SIGINT', onSigint);
  const result = await master.run().finally(async () => {
    unregister();
    await rest.stop(SHUTDOWN);
  });
  process.off('SIGINT', onSigint);
  progress.line.stop();
  printResult(result);
  return result.status === 'FINISHED' ? 0 : 1;
}

function printResult(r: JobResult): void {
  const restarts = r.restarts > 0 ? `, ${r.restarts} restart${r.restarts === 1 ? '' : 's'}` : '';
  const injected = r.injectedFailures > 0 ? `, ${r.injectedFailures} injected failure${r.injectedFailures === 1 ? '' : 's'}` : '';
  process.stderr.write(`Job ${r.jobId} ${r.status} in ${formatDuration(r.durationMs)}${restarts}${injected}\n`);
  if (r.error) process.stderr.write(`Cause: ${r.error.message}\n`);
}
