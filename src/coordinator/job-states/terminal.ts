import type { JobStatus } from '../job-status.ts';
import type { JobState } from './job-state.ts';

/** FINISHED, FAILED or CANCELED: nothing changes any more. */
export class Terminal implements JobState {
  readonly status: Extract<JobStatus, 'FINISHED' | 'FAILED' | 'CANCELED'>;

  constructor(status: Extract<JobStatus, 'FINISHED' | 'FAILED' | 'CANCELED'>) {
    this.status = status;
  }

  onFailure(): void {}
  onTaskStatus(): void {}
  cancel(): void {}
}
