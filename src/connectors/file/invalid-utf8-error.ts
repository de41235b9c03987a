/** A line of a text file that is not valid UTF-8, read with `invalidUtf8: 'fail'`: names the file and the line's byte offset. */
export class InvalidUtf8Error extends Error {
  /** The file's bytes do not change on a restart: restarting cannot help. */
  readonly unrecoverable = true;
  readonly path: string;
  readonly offset: number;
  constructor(path: string, offset: number) {
    super(`text file source: ${path}: the line at byte ${offset} is not valid UTF-8 (invalidUtf8 is 'fail'; 'replace' reads such lines with U+FFFD for the bad bytes)`);
    this.name = 'InvalidUtf8Error';
    this.path = path;
    this.offset = offset;
  }
}
