import type { SerializedError } from '../rpc/serialized-error.ts';
import type { JobStatus } from './job-status.ts';

/** One failure the JobMaster saw, and whether it restarted the job. */
export interface ExceptionRecord {
  readonly timestamp: number;
  readonly attempt: number;
  readonly error: SerializedError;
  readonly restarted: boolean;
}

export interface JobResult {
  readonly jobId: string;
  readonly status: JobStatus;
  readonly error: Error | undefined;
  readonly restarts: number;
  readonly injectedFailures: number;
  readonly durationMs: number;
  /** The newest completed checkpoint's directory, if it was kept. */
  readonly latestCheckpoint: string | undefined;
}
