import { open } from 'node:fs/promises';
import { readSync, openSync, closeSync, fstatSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import { Packr, Unpackr } from 'msgpackr';
import type { KeyedStateHandle } from './state-handles.ts';
import type { CapturedKeyedState } from '../state/captured-state.ts';
import type { Key, KeyGroupRange } from '../state/key-group.ts';
import type { StoredStateInfo } from '../state/heap-keyed-state-backend.ts';
import { writeFully } from '../fs/write-fully.ts';
import { CheckpointCorruptedError } from './checkpoint-storage-error.ts';

/**
 * Keyed state of one operator in one subtask, as a file of MessagePack frames
 * `[keyGroup, stateIndex, key, value, key, value, ...]`. Frames of one key group are contiguous
 * and the handle records each key group's byte range, so a restore at another parallelism reads
 * only the key groups it owns. Values of the default serializer are stored inline; others as the
 * bytes their serializer made.
 */
const SLICE = 2048;

/**
 * `signal` aborts the write between two slices (the checkpoint expired or was aborted): the
 * snapshot is released at once, so the writer must not read from it any more.
 */
export async function writeKeyedStateFile(path: string, captured: CapturedKeyedState, signal?: AbortSignal): Promise<KeyedStateHandle> {
  const packr = new Packr({ useRecords: false, moreTypes: true });
  const fh = await open(path, 'w');
  const states = captured.tables.map((t) => ({
    name: t.descriptor.name,
    kind: t.descriptor.kind,
    serializer: t.descriptor.serializer.id,
    version: t.descriptor.serializer.version,
  }));
  const keyGroups: Array<{ keyGroup: number; offset: number; length: number }> = [];
  let offset = 0;
  let entries = 0;
  let crc = 0;
  try {
    const groups = captured.keyGroupRange.end - captured.keyGroupRange.start + 1;
    for (let kg = 0; kg < groups; kg++) {
      const start = offset;
      for (let s = 0; s < captured.tables.length; s++) {
        const { descriptor, snapshot } = captured.tables[s]!;
        const inline = descriptor.serializer.id === 'msgpack';
        const serialize = descriptor.serializer.serialize as (v: unknown) => Uint8Array;
        for (const frame of snapshot.keyGroupFrames(kg, SLICE, [captured.keyGroupRange.start + kg, s])) {
          if (!inline) for (let i = 3; i < frame.length; i += 2) frame[i] = serialize(frame[i]);
          entries += (frame.length - 2) / 2;
          const bytes = packr.pack(frame);
          crc = crc32(bytes, crc);
          // The awaited write also lets the task thread process records between slices.
          await writeFully(fh, bytes, { path, offset });
          offset += bytes.length;
          signal?.throwIfAborted();
        }
      }
      if (offset > start) keyGroups.push({ keyGroup: captured.keyGroupRange.start + kg, offset: start, length: offset - start });
    }
    await fh.sync();
  } finally {
    await fh.close();
  }
  return { file: path, keyGroups, states, entries, bytes: offset, crc32: crc };
}

export interface KeyedStateReadResult {
  readonly states: readonly StoredStateInfo[];
  /** Calls back with the entries of one state in one key group. */
  forEach(fn: (state: StoredStateInfo, keyGroup: number, entries: Array<[Key, unknown]>) => void): void;
  /**
   * The same entries as they are in a frame, without an array per entry (restores make millions):
   * `pairs[from]` is a key, `pairs[from + 1]` its value, and so on to the end of `pairs`.
   */
  forEachPairs(fn: (state: StoredStateInfo, keyGroup: number, pairs: readonly unknown[], from: number) => void): void;
  /** The key groups of the range that the file holds, for callers that work one key group at a time. */
  readonly keyGroups: readonly number[];
  forEachPairsOf(keyGroup: number, fn: (state: StoredStateInfo, keyGroup: number, pairs: readonly unknown[], from: number) => void): void;
}

/** Reads the key groups of `range` from a handle's file, after checking the whole file's checksum. */
export function readKeyedStateFile(handle: KeyedStateHandle, resolvePath: (file: string) => string, range: KeyGroupRange): KeyedStateReadResult {
  const path = resolvePath(handle.file);
  const bytes = readWhole(path, handle.bytes);
  const actual = crc32(bytes);
  if (actual !== handle.crc32) throw new CheckpointCorruptedError(path, `checksum mismatch (expected ${handle.crc32}, found ${actual})`);
  const unpackr = new Unpackr({ useRecords: false, moreTypes: true });
  const inRange = handle.keyGroups.filter((g) => g.keyGroup >= range.start && g.keyGroup <= range.end);
  const forEachPairsOf: KeyedStateReadResult['forEachPairsOf'] = (keyGroup, fn) => {
    const g = inRange.find((x) => x.keyGroup === keyGroup);
    if (!g) return;
    const frames = unpackr.unpackMultiple(bytes.subarray(g.offset, g.offset + g.length)) as unknown[][];
    for (const frame of frames) {
      const kg = frame[0] as number;
      const state = handle.states[frame[1] as number];
      if (kg !== g.keyGroup || !state) throw new CheckpointCorruptedError(path, `frame at key group ${g.keyGroup} is not what the handle says`);
      fn(state, kg, frame, 2);
    }
  };
  const forEachPairs: KeyedStateReadResult['forEachPairs'] = (fn) => {
    for (const g of inRange) forEachPairsOf(g.keyGroup, fn);
  };
  return {
    states: handle.states,
    keyGroups: inRange.map((g) => g.keyGroup),
    forEachPairsOf,
    forEachPairs,
    forEach(fn) {
      forEachPairs((state, kg, pairs, from) => {
        const entries: Array<[Key, unknown]> = [];
        for (let i = from; i + 1 < pairs.length; i += 2) entries.push([pairs[i] as Key, pairs[i + 1]]);
        fn(state, kg, entries);
      });
    },
  };
}

function readWhole(path: string, expected: number): Buffer {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    throw new CheckpointCorruptedError(path, `cannot be read: ${(e as Error).message}`);
  }
  try {
    const size = fstatSync(fd).size;
    if (size !== expected) throw new CheckpointCorruptedError(path, `has ${size} bytes, the checkpoint recorded ${expected}`);
    const buf = Buffer.allocUnsafe(size);
    let read = 0;
    while (read < size) read += readSync(fd, buf, read, size - read, read);
    return buf;
  } finally {
    closeSync(fd);
  }
}
