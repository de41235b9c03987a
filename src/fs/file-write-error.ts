/** A write that did not put every byte on disk: names the file, where it stopped and why. */
export class FileWriteError extends Error {
  readonly path: string;
  /** Byte offset in the file where the failed write began. */
  readonly offset: number;
  readonly length: number;
  /** Bytes of this write that did reach the file before it stopped. */
  readonly written: number;
  readonly code: string | undefined;

  constructor(facts: { path: string; offset: number; length: number; written: number; code?: string | undefined }, cause?: unknown) {
    const why = cause instanceof Error ? cause.message : facts.code === 'ENOSPC' ? 'the write wrote nothing (the disk may be full)' : 'the write wrote nothing';
    super(`writing ${facts.path} at byte ${facts.offset} failed after ${facts.written} of ${facts.length} bytes: ${why}`, cause === undefined ? undefined : { cause });
    this.name = 'FileWriteError';
    this.path = facts.path;
    this.offset = facts.offset;
    this.length = facts.length;
    this.written = facts.written;
    this.code = facts.code ?? (cause as NodeJS.ErrnoException | undefined)?.code;
  }
}
