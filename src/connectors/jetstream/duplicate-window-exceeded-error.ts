/**
 * A restored checkpoint's publications are older than the output stream's duplicate window, and
 * the sink was told to refuse rather than read back what it wrote (`beyondDuplicateWindow:
 * 'refuse'`): the server would no longer drop the ones already published.
 */
export class DuplicateWindowExceededError extends Error {
  readonly stream: string;
  readonly duplicateWindowMs: number;
  readonly checkpointId: number;
  readonly checkpointAgeMs: number;
  readonly unrecoverable = true;

  constructor(stream: string, duplicateWindowMs: number, checkpointId: number, checkpointAgeMs: number) {
    super(
      `JetStream stream '${stream}': checkpoint ${checkpointId} is ${checkpointAgeMs} ms old, beyond the stream's duplicate_window of ${duplicateWindowMs} ms, so a replay of its publications would not be dropped as duplicates; ` +
        `the sink refuses the restore (beyondDuplicateWindow: 'refuse'); use 'read-back' to skip what is already in the stream`,
    );
    this.name = 'DuplicateWindowExceededError';
    this.stream = stream;
    this.duplicateWindowMs = duplicateWindowMs;
    this.checkpointId = checkpointId;
    this.checkpointAgeMs = checkpointAgeMs;
  }
}
