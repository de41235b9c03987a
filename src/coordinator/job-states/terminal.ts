import type { EndStatus } from '../job-status.ts';
import type { JobState } from './job-state.ts';

/** FINISHED, FAILED, CANCELED or SUSPENDED: nothing changes any more in this JobMaster. */
export class Terminal implements JobState {
  readonly status: EndStatus;

  constructor(status: EndStatus) {
    this.status = status;
  }

  onFailure(): void {}
  onTaskStatus(): void {}
  cancel(): void {}
}
