import { SinkError } from '../../api/sink-error.ts';

/** A commit that kept failing, or that the target refused: names the target, the checkpoint and the committable. */
export class CommitFailedError extends SinkError {
  readonly checkpointId: number | 'restored';
  readonly committable: unknown;
  readonly attempts: number;

  constructor(code: 'COMMIT_RETRIES_EXHAUSTED' | 'COMMIT_REFUSED', target: string, checkpointId: number | 'restored', committable: unknown, attempts: number, cause: unknown) {
    const what = checkpointId === 'restored' ? 'of the restored checkpoint' : `of checkpoint ${checkpointId}`;
    const reason = cause instanceof Error ? cause.message : String(cause);
    const verdict = code === 'COMMIT_REFUSED' ? 'was refused' : `failed ${attempts} times (commitRetry.maxAttempts)`;
    super(code, target, `committing ${describe(committable)} ${what} ${verdict}: ${reason}`, { cause });
    this.name = 'CommitFailedError';
    this.checkpointId = checkpointId;
    this.committable = committable;
    this.attempts = attempts;
  }
}

function describe(committable: unknown): string {
  const text = JSON.stringify(committable) ?? String(committable);
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}
