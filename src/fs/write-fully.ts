import { writeSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { FileWriteError } from './file-write-error.ts';

/**
 * write(2) may write less than it was given without an error (a nearly full disk, a signal):
 * the rest must be written again or the write must fail. Node's write and FileHandle.write make
 * one call and return its count, so every file weir writes goes through these loops.
 */

/** Where a write goes: the file's path (for errors) and the offset its bytes start at. */
export interface WriteTarget {
  readonly path: string;
  readonly offset: number;
}

/** Writes every byte of `data` at the file's current position, or throws FileWriteError. */
export function writeFullySync(fd: number, data: Uint8Array, target: WriteTarget): void {
  let written = 0;
  while (written < data.length) {
    let n: number;
    try {
      n = writeSync(fd, data, written, data.length - written);
    } catch (e) {
      throw new FileWriteError({ path: target.path, offset: target.offset, length: data.length, written }, e);
    }
    if (n <= 0) throw new FileWriteError({ path: target.path, offset: target.offset, length: data.length, written, code: 'ENOSPC' });
    written += n;
  }
}

/** The same for a FileHandle. */
export async function writeFully(handle: FileHandle, data: Uint8Array, target: WriteTarget): Promise<void> {
  let written = 0;
  while (written < data.length) {
    let n: number;
    try {
      ({ bytesWritten: n } = await handle.write(data, written, data.length - written));
    } catch (e) {
      throw new FileWriteError({ path: target.path, offset: target.offset, length: data.length, written }, e);
    }
    if (n <= 0) throw new FileWriteError({ path: target.path, offset: target.offset, length: data.length, written, code: 'ENOSPC' });
    written += n;
  }
}
