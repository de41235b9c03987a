/**
 * A checkpoint or savepoint file that cannot be read back as written: names the file and what is
 * wrong, and where in the file when that is known (a truncated or undecodable state file).
 */
export class CheckpointCorruptedError extends Error {
  readonly file: string;
  /** The byte offset in the file where reading failed, when known. */
  readonly offset: number | undefined;
  constructor(file: string, problem: string, details: { readonly offset?: number; readonly cause?: unknown } = {}) {
    super(`${file}: ${problem}`, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'CheckpointCorruptedError';
    this.file = file;
    this.offset = details.offset;
  }
}
