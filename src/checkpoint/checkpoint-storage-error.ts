/** A checkpoint or savepoint file that cannot be read back as written: names the file and what is wrong. */
export class CheckpointCorruptedError extends Error {
  readonly file: string;
  constructor(file: string, problem: string) {
    super(`${file}: ${problem}`);
    this.name = 'CheckpointCorruptedError';
    this.file = file;
  }
}
