import { readSync, closeSync, fstatSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import { Unpackr } from 'msgpackr';
import type { KeyedStateHandle } from './state-handles.ts';
import type { KeyedStateFileReader } from './keyed-state-file-reader.ts';
import type { Key, KeyGroupRange } from '../state/key-group.ts';
import { storedStateInfo } from '../state/stored-state-info.ts';
import { CheckpointCorruptedError } from './checkpoint-storage-error.ts';
import { openStateFile } from './open-state-file.ts';

/**
 * Keyed state files of format 1 (metadata format 3 and before): MessagePack frames
 * `[keyGroup, stateIndex, key, value, key, value, ...]`, frames of one key group contiguous and
 * the handle recording each key group's byte range. Values of the default serializer are inline,
 * others the bytes their serializer made. Only read now (format 2 is written, keyed-state-file.ts):
 * snapshots of earlier weirs still restore.
 */
export function readLegacyKeyedStateFile(handle: KeyedStateHandle, resolvePath: (file: string) => string, range: KeyGroupRange): KeyedStateFileReader {
  const path = resolvePath(handle.file);
  const bytes = readWhole(path, handle.bytes);
  const actual = crc32(bytes);
  if (actual !== handle.crc32) throw new CheckpointCorruptedError(path, `checksum mismatch (expected ${handle.crc32}, found ${actual})`);
  const unpackr = new Unpackr({ useRecords: false, moreTypes: true });
  const states = handle.states.map(storedStateInfo);
  const inRange = handle.keyGroups.filter((g) => g.keyGroup >= range.start && g.keyGroup <= range.end);
  return {
    path,
    states,
    keyGroups: inRange.map((g) => g.keyGroup),
    readKeyGroup(keyGroup, target) {
      const g = inRange.find((x) => x.keyGroup === keyGroup);
      if (!g) return;
      const frames = unpackr.unpackMultiple(bytes.subarray(g.offset, g.offset + g.length)) as unknown[][];
      for (const frame of frames) {
        const kg = frame[0] as number;
        const state = states[frame[1] as number];
        if (kg !== g.keyGroup || !state) throw new CheckpointCorruptedError(path, `frame at key group ${g.keyGroup} is not what the handle says`, { offset: g.offset });
        const put = target(state, kg);
        for (let i = 2; i + 1 < frame.length; i += 2) put(frame[i] as Key, frame[i + 1]);
      }
    },
  };
}

function readWhole(path: string, expected: number): Buffer {
  const fd = openStateFile(path);
  try {
    const size = fstatSync(fd).size;
    if (size !== expected) throw new CheckpointCorruptedError(path, `has ${size} bytes, the checkpoint recorded ${expected}`, { offset: Math.min(size, expected) });
    const buf = Buffer.allocUnsafe(size);
    let read = 0;
    while (read < size) read += readSync(fd, buf, read, size - read, read);
    return buf;
  } finally {
    closeSync(fd);
  }
}
