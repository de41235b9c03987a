import type { JobMaster } from '../coordinator/job-master.ts';

/** The job's name: env.setJobName or `weir run --name`, else its first source's name. */
export function jobName(m: JobMaster): string {
  return m.plan.name;
}
