import { resolveLocation } from '../checkpoint/checkpoint-location.ts';
import { rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { readMetadata } from '../checkpoint/checkpoint-metadata.ts';
import { isJobId } from '../coordinator/job-id.ts';
import type { CancelView, CheckpointsOverviewView, JobsOverviewView, SavepointTriggerView } from '../rest/rest-views.ts';
import { registeredJobs } from './job-registry.ts';
import { awaitCheckpoint, awaitTrigger, call, jobManagerFor, locateJobManager, namingJobManager } from './rest-client.ts';
import { UsageError } from './run-command.ts';

export interface RemoteOptions {
  readonly jobmanager?: string;
  readonly json?: boolean;
  readonly token?: string;
}

const print = (o: RemoteOptions, human: string, json: unknown) => process.stdout.write((o.json ? JSON.stringify(json) : human) + '\n');

function checkId(jobId: string): void {
  if (!isJobId(jobId)) throw new UsageError(`'${jobId}' is not a job id (32 lowercase hex characters, as printed by weir run)`);
}

/** The job's JobManager (checked id), to `work` on; its error answers say which JobManager gave them. */
async function atJobManager<T>(jobId: string, o: RemoteOptions, work: (base: string) => Promise<T>): Promise<T> {
  checkId(jobId);
  const at = locateJobManager(jobId, o.jobmanager);
  try {
    return await work(at.base);
  } catch (e) {
    throw namingJobManager(e, at);
  }
}

/** `weir list`: the jobs of the given JobManager, or of every `weir run` on this machine. */
export async function listCommand(o: RemoteOptions): Promise<number> {
  const bases = o.jobmanager ? [jobManagerFor(undefined, o.jobmanager)] : [...new Set(registeredJobs().map((j) => j.url))];
  const jobs: Array<{ id: string; status: string; jobmanager: string; name?: string; duration?: number }> = [];
  for (const base of bases) {
    const r = await call<JobsOverviewView>(base, 'GET', '/jobs/overview', undefined, o.token);
    for (const j of r.jobs) jobs.push({ id: j.jid, status: j.state, name: j.name, duration: j.duration, jobmanager: base });
  }
  const human =
    jobs.length === 0
      ? 'No running jobs.'
      : ['JOB ID                            STATUS      DURATION  JOBMANAGER               NAME', ...jobs.map((j) => `${j.id}  ${j.status.padEnd(10)}  ${`${Math.round((j.duration ?? 0) / 1000)} s`.padStart(8)}  ${j.jobmanager.padEnd(23)}  ${j.name ?? ''}`)].join('\n');
  print(o, `${human}\n${asked(bases)}`, { jobs, jobmanagers: bases });
  return 0;
}

/** Which JobManagers `weir list` asked: without -m, only those of `weir run`s on this machine. */
function asked(bases: readonly string[]): string {
  if (bases.length === 0) return 'Asked no JobManager: no -m given, and no weir run on this machine has registered one (weir list -m host:port asks a JobManager).';
  return `Asked the JobManager${bases.length > 1 ? 's' : ''} at ${bases.join(', ')}.`;
}

/** `weir savepoint <job-id> [dir]`: triggers a savepoint and waits for it. */
export async function savepointCommand(jobId: string, dir: string | undefined, o: RemoteOptions): Promise<number> {
  return atJobManager(jobId, o, async (base) => {
    process.stderr.write(`Triggering savepoint for job ${jobId}.\n`);
    const { 'request-id': trigger } = await call<SavepointTriggerView>(base, 'POST', `/jobs/${jobId}/savepoints`, dir ? { 'target-directory': resolveLocation(dir) } : {}, o.token);
    const location = await awaitTrigger(base, jobId, trigger, o.token);
    print(o, `Savepoint completed. Path: ${location}`, { jobId, location });
    return 0;
  });
}

/** `weir checkpoint <job-id>`: triggers a checkpoint now (besides the periodic ones) and waits for it. */
export async function checkpointCommand(jobId: string, o: RemoteOptions): Promise<number> {
  return atJobManager(jobId, o, async (base) => {
    process.stderr.write(`Triggering checkpoint for job ${jobId}.\n`);
    const { 'request-id': trigger } = await call<SavepointTriggerView>(base, 'POST', `/jobs/${jobId}/checkpoints`, { checkpointType: 'CONFIGURED' }, o.token);
    const { checkpointId, location } = await awaitCheckpoint(base, jobId, trigger, o.token);
    print(o, `Checkpoint ${checkpointId} completed. Path: ${location}`, { jobId, checkpointId, location });
    return 0;
  });
}

/** `weir stop <job-id> --savepoint DIR [--drain]`. */
export async function stopCommand(jobId: string, o: RemoteOptions & { savepoint?: string; drain?: boolean }): Promise<number> {
  return atJobManager(jobId, o, async (base) => {
    process.stderr.write(`Suspending job ${jobId} with a savepoint${o.drain ? ' (draining)' : ''}.\n`);
    const body = { ...(o.savepoint ? { targetDirectory: resolveLocation(o.savepoint) } : {}), drain: o.drain ?? false };
    const { 'request-id': trigger } = await call<SavepointTriggerView>(base, 'POST', `/jobs/${jobId}/stop`, body, o.token);
    const location = await awaitTrigger(base, jobId, trigger, o.token);
    print(o, `Savepoint completed. Path: ${location}`, { jobId, location });
    return 0;
  });
}

/** `weir cancel <job-id>`. */
export async function cancelCommand(jobId: string, o: RemoteOptions): Promise<number> {
  return atJobManager(jobId, o, async (base) => {
    await call<CancelView>(base, 'PATCH', `/jobs/${jobId}?mode=cancel`, undefined, o.token);
    print(o, `Cancelled job ${jobId}.`, { jobId, cancelled: true });
    return 0;
  });
}

/** `weir savepoint --dispose PATH`: removes a savepoint (only what has a weir _metadata). */
export async function disposeCommand(path: string, o: RemoteOptions): Promise<number> {
  const { metadata, directory } = await readMetadata(resolve(path));
  await rm(directory, { recursive: true, force: true });
  print(o, `Disposed ${metadata.type} ${metadata.checkpointId} of job ${metadata.jobId}: ${directory}`, { disposed: directory });
  return 0;
}

const size = (n: number) => (n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} kB` : `${(n / 1024 / 1024).toFixed(1)} MB`);

/** `weir checkpoints <job-id>`: recent checkpoints with durations, sizes, and why failed ones failed. */
export async function checkpointsCommand(jobId: string, o: RemoteOptions & { limit?: string }): Promise<number> {
  const r = await atJobManager(jobId, o, (base) => call<CheckpointsOverviewView>(base, 'GET', `/jobs/${jobId}/checkpoints`, undefined, o.token));
  if (o.json) {
    process.stdout.write(JSON.stringify(r) + '\n');
    return 0;
  }
  const c = r.counts;
  const lines = [`checkpoints of job ${jobId}: ${c.completed} completed, ${c.failed} failed, ${c.in_progress} in progress, ${c.restored} restored`, ''];
  // SIZE is the full state (Flink's state_size), CHECKPOINTED what the checkpoint wrote (checkpointed_size): less with incremental checkpoints.
  lines.push('  ID  STATUS       TYPE        TRIGGERED     DURATION       SIZE  CHECKPOINTED  PERSISTED  ACKED');
  for (const h of r.history.slice(0, Number(o.limit ?? 20))) {
    const type = h.is_savepoint ? 'savepoint' : h.unaligned ? 'unaligned' : 'checkpoint';
    const time = new Date(h.trigger_timestamp).toISOString().slice(11, 23);
    lines.push(
      `${String(h.id).padStart(4)}  ${h.status.padEnd(11)}  ${type.padEnd(10)}  ${time}  ${`${h.end_to_end_duration} ms`.padStart(9)}  ${size(h.state_size).padStart(9)}  ${size(h.checkpointed_size).padStart(12)}  ${size(h.persisted_data).padStart(9)}  ${h.num_acknowledged_subtasks}/${h.num_subtasks}`,
    );
    if (h.failure_message) lines.push(`        reason: ${h.failure_message}`);
    if (h.failure_hint) lines.push(`        hint: ${h.failure_hint}`);
  }
  process.stdout.write(lines.join('\n') + '\n');
  return 0;
}
