import { systemErrorReason } from './system-error-reason.ts';

/**
 * An fsync of a directory that failed: the entries created or renamed in it since its last fsync
 * may not survive a crash, so nothing that names them may be acknowledged.
 */
export class DirectorySyncError extends Error {
  readonly path: string;
  readonly code: string | undefined;

  constructor(path: string, cause: unknown) {
    super(`fsync of directory ${path} failed, so its new and renamed entries may not be durable: ${systemErrorReason(cause)}`, { cause });
    this.name = 'DirectorySyncError';
    this.path = path;
    this.code = (cause as NodeJS.ErrnoException | undefined)?.code;
  }
}
