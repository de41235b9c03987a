import { rename } from 'node:fs/promises';
import { FileRenameError } from './file-rename-error.ts';

/** Renames `from` to `to`, or throws FileRenameError naming both. */
export async function renameFile(from: string, to: string): Promise<void> {
  try {
    await rename(from, to);
  } catch (e) {
    throw new FileRenameError({ from, to }, e);
  }
}
