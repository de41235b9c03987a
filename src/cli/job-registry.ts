import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * Jobs that `weir run` serves on this machine, one small file each under ~/.weir/jobs (or
 * $WEIR_HOME/jobs), so `weir savepoint <job-id>` finds the REST address without --jobmanager.
 */
export interface RegisteredJob {
  readonly jobId: string;
  readonly url: string;
  readonly pid: number;
  readonly startedAt: number;
}

function dir(): string {
  return join(process.env.WEIR_HOME ?? join(homedir(), '.weir'), 'jobs');
}

export function registerJob(job: RegisteredJob): () => void {
  const d = dir();
  const file = join(d, `${job.jobId}.json`);
  try {
    mkdirSync(d, { recursive: true });
    writeFileSync(file, JSON.stringify(job));
  } catch {
    return () => {};
  }
  return () => rmSync(file, { force: true });
}

/** Registered jobs whose process is still alive (stale entries of killed processes are removed). */
export function registeredJobs(): RegisteredJob[] {
  let names: string[];
  try {
    names = readdirSync(dir()).filter((n) => n.endsWith('.json'));
  } catch {
    return [];
  }
  const jobs: RegisteredJob[] = [];
  for (const name of names) {
    try {
      const job = JSON.parse(readFileSync(join(dir(), name), 'utf8')) as RegisteredJob;
      if (alive(job.pid)) jobs.push(job);
      else rmSync(join(dir(), name), { force: true });
    } catch {
      // A half-written or foreign file: not ours to interpret.
    }
  }
  return jobs;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
