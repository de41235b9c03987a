/**
 * The output stream's duplicate window (its `duplicate_window` setting) is shorter than a
 * checkpoint can take from its pre-commit to its commit (the checkpoint interval plus its
 * timeout): a commit retried after that would no longer be recognized by its message ids.
 */
export class DuplicateWindowTooShortError extends Error {
  readonly stream: string;
  readonly duplicateWindowMs: number;
  readonly requiredMs: number;
  readonly checkpointIntervalMs: number;
  readonly checkpointTimeoutMs: number;
  readonly unrecoverable = true;

  constructor(stream: string, duplicateWindowMs: number, checkpointIntervalMs: number, checkpointTimeoutMs: number) {
    const requiredMs = checkpointIntervalMs + checkpointTimeoutMs;
    super(
      `JetStream stream '${stream}' has duplicate_window ${duplicateWindowMs} ms, shorter than execution.checkpointing.interval (${checkpointIntervalMs} ms) + execution.checkpointing.timeout (${checkpointTimeoutMs} ms) = ${requiredMs} ms: ` +
        `raise the stream's duplicate_window (nats stream edit ${stream} --dupe-window ${Math.ceil(requiredMs / 1000)}s) or lower the checkpoint timeout, or set the sink's duplicateWindowCheck to 'warn'`,
    );
    this.name = 'DuplicateWindowTooShortError';
    this.stream = stream;
    this.duplicateWindowMs = duplicateWindowMs;
    this.requiredMs = requiredMs;
    this.checkpointIntervalMs = checkpointIntervalMs;
    this.checkpointTimeoutMs = checkpointTimeoutMs;
  }
}
