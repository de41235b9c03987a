import { open } from 'node:fs/promises';
import { DirectorySyncError } from './directory-sync-error.ts';

/** fsyncs a directory: a rename or a new file in it is durable only once its entry is. Throws DirectorySyncError. */
export async function syncDirectory(dir: string): Promise<void> {
  let d;
  try {
    d = await open(dir, 'r');
  } catch (e) {
    throw new DirectorySyncError(dir, e);
  }
  try {
    await d.sync();
  } catch (e) {
    throw new DirectorySyncError(dir, e);
  } finally {
    await d.close();
  }
}
