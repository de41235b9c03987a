import { join } from 'node:path';
import type { WeirConfig } from '../config/configuration.ts';
import { METADATA_FILE } from './checkpoint-metadata.ts';
import { CheckpointCorruptedError } from './checkpoint-storage-error.ts';
import { childLocation, isNatsObjectLocation, parseNatsObjectLocation } from './checkpoint-location.ts';
import { NatsObjectFiles } from './nats/nats-object-files.ts';
import { relativeName, withStaging } from './object-store-checkpoint-storage.ts';

/**
 * Runs `fn` on a directory holding the snapshot at `location`: the location itself for a
 * directory, a local copy of every object below it for `nats-obj://` (weir inspect reads state
 * files synchronously). The copy goes when `fn` is done.
 */
export async function withReadableSnapshot<T>(location: string, config: WeirConfig, fn: (directory: string) => Promise<T>): Promise<T> {
  if (!isNatsObjectLocation(location)) return fn(location);
  const at = location.endsWith(`/${METADATA_FILE}`) ? location.slice(0, -METADATA_FILE.length - 1) : location;
  const { bucket, path } = parseNatsObjectLocation(at);
  const files = new NatsObjectFiles(config);
  try {
    return await withStaging(async (dir) => {
      const names = await files.list(bucket, path);
      if (names.length === 0) throw new CheckpointCorruptedError(childLocation(at, METADATA_FILE), 'no _metadata here: not a complete checkpoint or savepoint');
      for (const name of names) await files.download(bucket, name, join(dir, relativeName(path, name)));
      return fn(dir);
    });
  } finally {
    await files.close();
  }
}
