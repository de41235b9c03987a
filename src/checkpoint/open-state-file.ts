import { openSync } from 'node:fs';
import { CheckpointCorruptedError } from './checkpoint-storage-error.ts';

/** Opens a state file for reading; one that cannot be opened is a corrupted checkpoint, named by its path. */
export function openStateFile(path: string): number {
  try {
    return openSync(path, 'r');
  } catch (e) {
    throw new CheckpointCorruptedError(path, `cannot be read: ${(e as Error).message}`, { cause: e });
  }
}
