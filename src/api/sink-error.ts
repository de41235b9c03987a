import { SINK_FAILURE_REASONS, type SinkFailureCode } from './sink-failure-reason.ts';

/** A sink's failure with its reason code and target (server, database, table); `unrecoverable` follows the code's table entry. */
export class SinkError extends Error {
  readonly code: SinkFailureCode;
  readonly target: string;
  readonly unrecoverable: boolean;

  constructor(code: SinkFailureCode, target: string, message: string, options?: { cause?: unknown }) {
    super(`${target}: ${message}`, options);
    this.name = 'SinkError';
    this.code = code;
    this.target = target;
    this.unrecoverable = !SINK_FAILURE_REASONS[code].restartable;
  }
}
