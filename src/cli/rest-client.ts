import type { CheckpointOperationStatusView, ErrorView, OperationStatusView } from '../rest/rest-views.ts';
import { registeredJobs } from './job-registry.ts';

/** A JobManager that did not answer, or answered with an error: names the address and the cause. */
export class JobManagerError extends Error {
  readonly address: string;
  readonly status: number | undefined;
  constructor(address: string, message: string, status?: number, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'JobManagerError';
    this.address = address;
    this.status = status;
  }
}

/** A JobManager's REST address and how the CLI came to it, for saying which one was asked. */
export interface JobManagerAddress {
  readonly base: string;
  /** -m given; registered by the job's `weir run` on this machine; or the default guess. */
  readonly source: 'flag' | 'registry' | 'default';
}

export const DEFAULT_JOBMANAGER = 'http://127.0.0.1:8081';

/**
 * Where the JobManager of a job answers: --jobmanager host:port if given, else the address the
 * job's `weir run` registered on this machine, else 127.0.0.1:8081.
 */
export function locateJobManager(jobId: string | undefined, flag: string | undefined): JobManagerAddress {
  if (flag) return { base: flag.startsWith('http') ? flag : `http://${flag}`, source: 'flag' };
  const registered = jobId ? registeredJobs().find((j) => j.jobId === jobId) : undefined;
  return registered ? { base: registered.url, source: 'registry' } : { base: DEFAULT_JOBMANAGER, source: 'default' };
}

export function jobManagerFor(jobId: string | undefined, flag: string | undefined): string {
  return locateJobManager(jobId, flag).base;
}

/**
 * An error answer, with the JobManager that gave it and, when the CLI chose that one itself, how
 * and that -m names another: a 404 `job not found` from the default 127.0.0.1:8081 otherwise reads
 * as if the job did not exist anywhere.
 */
export function namingJobManager(e: unknown, at: JobManagerAddress): unknown {
  if (!(e instanceof JobManagerError) || e.status === undefined) return e;
  const how =
    at.source === 'flag'
      ? `the JobManager at ${at.base} (-m)`
      : at.source === 'registry'
        ? `the JobManager at ${at.base}, where this job's weir run registered on this machine; if the job runs elsewhere, pass -m host:port`
        : `the JobManager at ${at.base}, the default (no -m given, and no weir run of this job registered on this machine); pass -m host:port of the job's JobManager`;
  return new JobManagerError(e.address, `${e.message} (asked ${how})`, e.status, e);
}

export async function call<T>(base: string, method: string, path: string, body?: unknown, token?: string): Promise<T> {
  let res: Response;
  try {
    res = await fetch(`${base}${path}`, {
      method,
      headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      signal: AbortSignal.timeout(10_000),
    });
  } catch (e) {
    throw new JobManagerError(base, `no JobManager answers at ${base} (${(e as Error).cause instanceof Error ? ((e as Error).cause as Error).message : (e as Error).message}); is the job running? pass --jobmanager host:port`);
  }
  const text = await res.text();
  const json = text ? (JSON.parse(text) as unknown) : {};
  if (!res.ok) {
    const errors = (json as Partial<ErrorView>).errors ?? [text];
    throw new JobManagerError(base, `${method} ${path}: ${res.status} ${errors.join('; ')}`, res.status);
  }
  return json as T;
}

/** Polls a savepoint or stop trigger until it completes; returns the savepoint's location. */
export async function awaitTrigger(base: string, jobId: string, triggerId: string, token?: string, timeoutMs = 10 * 60_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (let wait = 50; Date.now() < deadline; wait = Math.min(wait * 2, 1000)) {
    const r = await call<OperationStatusView>(base, 'GET', `/jobs/${jobId}/savepoints/${triggerId}`, undefined, token);
    if (r.status.id === 'COMPLETED') {
      if (r.operation?.location) return r.operation.location;
      throw new JobManagerError(base, r.operation?.['failure-cause']?.['stack-trace'] ?? 'the savepoint failed');
    }
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
  throw new JobManagerError(base, `the savepoint did not complete within ${Math.round(timeoutMs / 1000)} s (trigger ${triggerId}); it may still complete`);
}

/** Polls a manually triggered checkpoint until it completes; returns its id and directory. */
export async function awaitCheckpoint(base: string, jobId: string, triggerId: string, token?: string, timeoutMs = 10 * 60_000): Promise<{ checkpointId: number; location: string }> {
  const deadline = Date.now() + timeoutMs;
  for (let wait = 50; Date.now() < deadline; wait = Math.min(wait * 2, 1000)) {
    const r = await call<CheckpointOperationStatusView>(base, 'GET', `/jobs/${jobId}/checkpoints/${triggerId}`, undefined, token);
    if (r.status.id === 'COMPLETED') {
      const op = r.operation;
      if (op?.checkpointId !== undefined) return { checkpointId: op.checkpointId, location: op.location };
      throw new JobManagerError(base, op?.failureCause?.['stack-trace'] ?? 'the checkpoint failed');
    }
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
  throw new JobManagerError(base, `the checkpoint did not complete within ${Math.round(timeoutMs / 1000)} s (trigger ${triggerId}); it may still complete`);
}
