import { resolve } from 'node:path';
import { bundleJob } from '../cluster/job-bundle.ts';
import { isTerminal, type JobStatus } from '../coordinator/job-status.ts';
import { formatDuration } from '../config/duration.ts';
import type { JobDetailsView, JobExceptionsView } from '../rest/rest-views.ts';
import { readConfigFile } from './config-file.ts';
import { call, JobManagerError } from './rest-client.ts';
import { commandLineConfig, type RunOptions } from './run-command.ts';

export interface SubmitOptions extends RunOptions {
  readonly jobmanager: string;
  readonly detached?: boolean;
  readonly token?: string;
}

/** Sends a bundle and a run request to a JobManager (Flink's POST /jars/upload and /jars/:id/run); returns the job id. */
export async function submitJob(base: string, job: string, jobArgs: readonly string[], o: RunOptions & { token?: string }): Promise<string> {
  const bundle = await bundleJob(job);
  const upload = await uploadBundle(base, bundle.code, bundle.name, o.token);
  const config = commandLineConfig(o);
  const parallelism = config['parallelism.default'];
  delete config['parallelism.default'];
  const body = {
    programArgsList: jobArgs,
    ...(parallelism !== undefined ? { parallelism: Number(parallelism) } : {}),
    ...(o.fromSavepoint ? { savepointPath: resolve(o.fromSavepoint) } : {}),
    allowNonRestoredState: o.allowNonRestoredState ?? false,
    flinkConfiguration: config,
    ...(o.config ? { configFile: readConfigFile(o.config), configFilePath: resolve(o.config) } : {}),
  };
  const r = await call<{ jobid: string }>(base, 'POST', `/jars/${upload}/run`, body, o.token);
  return r.jobid;
}

async function uploadBundle(base: string, code: Buffer, name: string, token: string | undefined): Promise<string> {
  let res: Response;
  try {
    res = await fetch(`${base}/jars/upload`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream', 'x-weir-bundle-name': name, ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: code,
      signal: AbortSignal.timeout(60_000),
    });
  } catch (e) {
    throw new JobManagerError(base, `no JobManager answers at ${base} (${(e as Error).cause instanceof Error ? ((e as Error).cause as Error).message : (e as Error).message}): is weir jobmanager running there?`);
  }
  const text = await res.text();
  if (!res.ok) throw new JobManagerError(base, `the upload of ${name} was refused: ${res.status} ${text}`, res.status);
  return (JSON.parse(text) as { filename: string }).filename;
}

/** `weir run JOB -m H:P [-d]`: submits to a cluster; attached, follows the job to its end as a local run does. */
export async function submitCommand(job: string, jobArgs: readonly string[], o: SubmitOptions): Promise<number> {
  const base = o.jobmanager.startsWith('http') ? o.jobmanager : `http://${o.jobmanager}`;
  const jobId = await submitJob(base, job, jobArgs, o);
  process.stdout.write(`Job ID: ${jobId}\n`);
  if (o.detached) {
    process.stderr.write(`Job has been submitted with JobID ${jobId} to ${base}\n`);
    return 0;
  }
  process.stderr.write(`REST: ${base} (dashboard: ${base}/#/jobs/${jobId})\n`);
  return followJob(base, jobId, o.token);
}

/** Polls the job until it ends, printing its restarts; exit code 0 when it FINISHED. */
export async function followJob(base: string, jobId: string, token: string | undefined): Promise<number> {
  let seen = 0;
  let detached = false;
  let suspended = false;
  const onSigint = () => {
    detached = true;
    process.stderr.write(`detached: job ${jobId} goes on (weir cancel ${jobId} -m ${base.replace(/^http:\/\//, '')})\n`);
  };
  process.once('SIGINT', onSigint);
  try {
    for (let failures = 0; !detached; ) {
      let details: JobDetailsView;
      let exceptions: JobExceptionsView;
      try {
        details = await call<JobDetailsView>(base, 'GET', `/jobs/${jobId}`, undefined, token);
        exceptions = await call<JobExceptionsView>(base, 'GET', `/jobs/${jobId}/exceptions`, undefined, token);
        failures = 0;
      } catch (e) {
        // A JobManager that is gone for long is not coming back for this job.
        if (++failures >= 10) throw e;
        await new Promise((r) => setTimeout(r, 500));
        continue;
      }
      const entries = exceptions.exceptionHistory.entries;
      for (const e of entries.slice(seen)) process.stderr.write(`${e.restarted ? 'restarting' : 'failed'}${e.attempt >= 0 ? ` (attempt ${e.attempt})` : ''}: ${headline(e.exceptionName, e.stacktrace)}\n`);
      seen = entries.length;
      const status = details.state as JobStatus;
      if (status === 'SUSPENDED') {
        // Not the job's end: a leader JobManager runs it on from its checkpoints, and this address answers for the leader.
        if (!suspended) process.stderr.write(`Job ${jobId} SUSPENDED (its JobManager lost leadership): waiting for the leader to run it on\n`);
        suspended = true;
      } else if (isTerminal(status)) {
        const restarts = details.restarts > 0 ? `, ${details.restarts} restart${details.restarts === 1 ? '' : 's'}` : '';
        process.stderr.write(`Job ${jobId} ${status} in ${formatDuration(details.duration)}${restarts}\n`);
        const last = entries.at(-1);
        if (status === 'FAILED' && last) process.stderr.write(`Cause: ${headline(last.exceptionName, last.stacktrace)}\n`);
        return status === 'FINISHED' ? 0 : 1;
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    return 0;
  } finally {
    process.off('SIGINT', onSigint);
  }
}

/** A failure's first line, named once: a stack trace's first line already starts with the error's name. */
function headline(name: string, stacktrace: string): string {
  const first = stacktrace.split('\n')[0] ?? '';
  return first.startsWith(`${name}:`) || first === name ? first : `${name}: ${first}`;
}
