import { open } from 'node:fs/promises';

/** fsyncs a directory: a rename or a new file in it is durable only once its entry is. */
export async function syncDirectory(dir: string): Promise<void> {
  const d = await open(dir, 'r');
  try {
    await d.sync();
  } finally {
    await d.close();
  }
}
