import { statfsSync } from 'node:fs';
import { dirname } from 'node:path';

/** What weir was doing with the local store when it failed. */
export type LocalStateStorageOperation = 'open' | 'read' | 'write';

/**
 * The lmdb state backend's local store failed: a full or unwritable `state.backend.lmdb.localdir`,
 * a disk error. Names the store's path, the operation, the operating system's error and the free
 * space left, so that the fix (room on that disk, or another localdir) is in the message. A restart
 * may mend it (space freed, the store thrown away and rebuilt from the last checkpoint), so the task
 * fails and the job recovers by its restart strategy. LMDB reports a full disk as EIO, not ENOSPC,
 * hence the free space.
 */
export class LocalStateStorageError extends Error {
  readonly path: string;
  readonly operation: LocalStateStorageOperation;
  readonly operatorUid: string;
  /** The error code LMDB or the OS gave (an errno number or a code such as EACCES). */
  readonly osCode: string | number | undefined;
  /** Bytes free on the store's filesystem when it failed, if they could be read. */
  readonly freeBytes: number | undefined;
  /** True when the backend had been closed (its task was ending): the store is gone, not the disk at fault. */
  readonly afterClose: boolean;
  constructor(operatorUid: string, path: string, operation: LocalStateStorageOperation, cause: unknown, afterClose = false) {
    const osCode = (cause as { code?: string | number } | null)?.code;
    const freeBytes = freeBytesAt(path);
    // After close the disk is not at fault: its free space would only mislead.
    const free = freeBytes === undefined || afterClose ? '' : `; ${freeBytes} bytes are free on its filesystem`;
    const hint = afterClose
      ? 'the state backend had been closed (its task was ending): this is state used after its operator closed, not a disk fault'
      : freeBytes !== undefined && freeBytes < 1 << 20
        ? 'the disk is full: make room there or set state.backend.lmdb.localdir to a larger disk'
        : 'check that state.backend.lmdb.localdir is a writable local disk with room';
    super(`lmdb state backend of operator uid '${operatorUid}': ${operation === 'open' ? 'opening' : operation === 'read' ? 'reading' : 'writing to'} the local store at ${path} failed: ${(cause as Error)?.message ?? String(cause)}${osCode === undefined ? '' : ` (code ${osCode})`}${free}; ${hint}`, { cause });
    this.name = 'LocalStateStorageError';
    this.path = path;
    this.operation = operation;
    this.operatorUid = operatorUid;
    this.osCode = osCode;
    this.freeBytes = freeBytes;
    this.afterClose = afterClose;
  }
}

function freeBytesAt(path: string): number | undefined {
  for (const p of [path, dirname(path)]) {
    try {
      const s = statfsSync(p);
      return s.bavail * s.bsize;
    } catch {
      // Not there (yet): its parent's filesystem is the one.
    }
  }
  return undefined;
}
