import { open } from 'node:fs/promises';
import { closeSync, openSync, readSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import { Packr, Unpackr } from 'msgpackr';
import type { ChannelStateHandle } from './state-handles.ts';
import { writeFully } from '../fs/write-fully.ts';
import { CheckpointCorruptedError } from './checkpoint-storage-error.ts';

/**
 * In-flight data of an unaligned checkpoint: for each channel, the records the barrier overtook,
 * in the order they were queued. One file per subtask; each channel is one MessagePack block
 * whose byte range and checksum the handle records.
 */
export async function writeChannelStateFile(path: string, channels: ReadonlyArray<readonly [string, readonly unknown[]]>): Promise<Record<string, ChannelStateHandle>> {
  const packr = new Packr({ useRecords: true, moreTypes: true });
  const handles: Record<string, ChannelStateHandle> = {};
  const fh = await open(path, 'w');
  let offset = 0;
  try {
    for (const [key, records] of channels) {
      if (records.length === 0) continue;
      const bytes = Uint8Array.prototype.slice.call(packr.pack(records)) as Uint8Array;
      await writeFully(fh, bytes, { path, offset });
      handles[key] = { file: path, offset, length: bytes.length, records: records.length, crc32: crc32(bytes) };
      offset += bytes.length;
    }
    await fh.sync();
  } finally {
    await fh.close();
  }
  return handles;
}

export function readChannelState(handle: ChannelStateHandle, path: string): unknown[] {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    throw new CheckpointCorruptedError(path, `channel state cannot be read: ${(e as Error).message}`);
  }
  try {
    const buf = Buffer.allocUnsafe(handle.length);
    const n = readSync(fd, buf, 0, handle.length, handle.offset);
    if (n !== handle.length) throw new CheckpointCorruptedError(path, `channel state truncated at byte ${handle.offset + n}`);
    if (crc32(buf) !== handle.crc32) throw new CheckpointCorruptedError(path, `channel state checksum mismatch at byte ${handle.offset}`);
    return new Unpackr({ useRecords: true, moreTypes: true }).unpack(buf) as unknown[];
  } finally {
    closeSync(fd);
  }
}
