import { open } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { crc32 } from 'node:zlib';
import type { CheckpointMetadata } from './checkpoint-metadata.ts';
import { CheckpointCorruptedError } from './checkpoint-storage-error.ts';
import { MissingSharedStateFileError } from './incremental/missing-shared-state-file-error.ts';
import { isSharedFile, keyedHandleFiles } from './incremental/shared-state-files.ts';

/**
 * Reads every state file a checkpoint refers to and checks size and checksum, before any
 * subtask is deployed with it: a damaged checkpoint is found here, not halfway into a restore.
 */
export async function verifyCheckpointFiles(metadata: CheckpointMetadata, directory: string): Promise<void> {
  for (const [file, expected] of keyedStateFiles(metadata)) {
    const path = isAbsolute(file) ? file : join(directory, file);
    let fh;
    try {
      fh = await open(path, 'r');
    } catch (e) {
      if (isSharedFile(file)) throw new MissingSharedStateFileError(path, metadata.checkpointId, file, { cause: e });
      throw new CheckpointCorruptedError(path, `state file is missing: ${(e as Error).message}`);
    }
    try {
      const { size } = await fh.stat();
      if (size !== expected.bytes) throw new CheckpointCorruptedError(path, `has ${size} bytes, the checkpoint recorded ${expected.bytes}`);
      const buf = Buffer.allocUnsafe(1 << 20);
      let crc = 0;
      for (let pos = 0; pos < size; ) {
        const { bytesRead } = await fh.read(buf, 0, buf.length, pos);
        if (bytesRead === 0) break;
        crc = crc32(buf.subarray(0, bytesRead), crc);
        pos += bytesRead;
      }
      if (crc !== expected.crc32) throw new CheckpointCorruptedError(path, `checksum mismatch (expected ${expected.crc32}, found ${crc})`);
    } finally {
      await fh.close();
    }
  }
}

/**
 * The keyed state files a checkpoint's metadata names (relative to it, or absolute for an old
 * snapshot), with their recorded size and checksum: an incremental handle's base and deltas too.
 */
export function keyedStateFiles(metadata: CheckpointMetadata): Map<string, { bytes: number; crc32: number }> {
  const files = new Map<string, { bytes: number; crc32: number }>();
  for (const op of metadata.operators) for (const s of op.subtasks) if (s.keyed) for (const h of keyedHandleFiles(s.keyed)) files.set(h.file, { bytes: h.bytes, crc32: h.crc32 });
  return files;
}
