/** Flink's job states, as weir goes through them. */
export type JobStatus = 'CREATED' | 'RUNNING' | 'RESTARTING' | 'FINISHED' | 'FAILED' | 'CANCELED';

export function isTerminal(status: JobStatus): boolean {
  return status === 'FINISHED' || status === 'FAILED' || status === 'CANCELED';
}
