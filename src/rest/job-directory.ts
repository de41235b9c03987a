import type { JobMaster } from '../coordinator/job-master.ts';

/**
 * The jobs a REST server answers for: the one job of `weir run`, or every job a JobManager
 * process runs and keeps (see cluster/job-store.ts). `list()` may grow while the server runs.
 */
export interface JobDirectory {
  list(): readonly JobMaster[];
  get(jobId: string): JobMaster | undefined;
  /**
   * What to answer instead of 404 for a job this directory does not have, when it may well exist
   * elsewhere: a standby JobManager that knows no leader answers 503 (Flink's standbys answer so
   * during a leader election), not that the job does not exist. Undefined: 404.
   */
  absent?(jobId: string): (Error & { readonly statusCode: number }) | undefined;
}

/** The directory of `weir run`: one job. */
export function singleJob(master: JobMaster): JobDirectory {
  const list = [master];
  return { list: () => list, get: (id) => (id === master.jobId ? master : undefined) };
}
