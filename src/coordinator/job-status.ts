import type { StopReason } from '../lifecycle/service.ts';

/**
 * Flink's job states, as weir goes through them. SUSPENDED is Flink's too: the JobMaster stopped
 * the job because its JobManager lost leadership (or is closing under high availability); it is
 * the end here but not the job's end: a leader runs it on from its checkpoints, which stay.
 */
export type JobStatus = 'CREATED' | 'RUNNING' | 'RESTARTING' | 'FINISHED' | 'FAILED' | 'CANCELED' | 'SUSPENDED';

/** The statuses this JobMaster ends a job with. */
export type EndStatus = Extract<JobStatus, 'FINISHED' | 'FAILED' | 'CANCELED' | 'SUSPENDED'>;

/** Nothing changes any more in this JobMaster (Flink's isTerminalState). */
export function isTerminal(status: JobStatus): status is EndStatus {
  return status === 'FINISHED' || status === 'FAILED' || status === 'CANCELED' || status === 'SUSPENDED';
}

/** The job itself has ended: no leader runs it again (Flink's isGloballyTerminalState). */
export function isGloballyTerminal(status: JobStatus): status is Exclude<EndStatus, 'SUSPENDED'> {
  return status === 'FINISHED' || status === 'FAILED' || status === 'CANCELED';
}

/**
 * Why the job's own services stop when it ends with `status`, in the words their messages have
 * always used (`job canceled`): a failure keeps its cause; a suspended job is taken over by a leader.
 */
export function jobEndReason(status: EndStatus, error?: Error): StopReason {
  const detail = `job ${status.toLowerCase()}`;
  if (status === 'FAILED' && error) return { code: 'failed', cause: error, detail };
  if (status === 'SUSPENDED') return { code: 'replaced', detail };
  return { code: 'shutdown', detail };
}
