import type { JobMaster } from '../coordinator/job-master.ts';

/**
 * The jobs a REST server answers for: the one job of `weir run`, or every job a JobManager
 * process runs and keeps (see cluster/job-store.ts). `list()` may grow while the server runs.
 */
export interface JobDirectory {
  list(): readonly JobMaster[];
  get(jobId: string): JobMaster | undefined;
}

/** The directory of `weir run`: one job. */
export function singleJob(master: JobMaster): JobDirectory {
  const list = [master];
  return { list: () => list, get: (id) => (id === master.jobId ? master : undefined) };
}
