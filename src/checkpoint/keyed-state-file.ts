import { open } from 'node:fs/promises';
import { closeSync, fstatSync, readSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import type { KeyedStateHandle } from './state-handles.ts';
import type { KeyedStateFileReader } from './keyed-state-file-reader.ts';
import { readLegacyKeyedStateFile } from './legacy-keyed-state-file.ts';
import { CheckpointCorruptedError } from './checkpoint-storage-error.ts';
import { openStateFile } from './open-state-file.ts';
import { isKeyEncoding, keyEncodingOf, KEYS_DOUBLE, KEYS_INT, KEYS_STRING, readTaggedKey, writeTaggedKey } from './state-key-encoding.ts';
import { stateValueCodec, type StateValueCodec } from './state-value-codec.ts';
import type { CapturedKeyedState } from '../state/captured-state.ts';
import type { Key, KeyGroupRange } from '../state/key-group.ts';
import { storedStateInfo, type StoredStateInfo } from '../state/stored-state-info.ts';
import { DataInput } from '../serialization/data-input.ts';
import { DataOutput } from '../serialization/data-output.ts';
import { describeValue } from '../serialization/describe-value.ts';
import { SerializationError } from '../serialization/serialization-error.ts';
import { snapshotOf } from '../serialization/serializer-snapshot.ts';
import { writeFully } from '../fs/write-fully.ts';
import { BackgroundSync } from '../fs/background-sync.ts';
import { SavedValueRuns } from './saved-value-runs.ts';

/**
 * Keyed state of one operator in one subtask, format 2: the states' own serializers write it.
 *
 *   file       "WEIRKSF" 0x02, then the key groups in ascending order
 *   key group  a block per state that has entries in it, and a second one of the state's values
 *              saved by changes while the file was written (saved-value-runs.ts); the handle
 *              records each key group's offset, length and crc32 (and the whole file's size and
 *              crc32). A key is in one block of its state only.
 *   block      varuint stateIndex (into the handle's states), varuint keyGroup, runs, varuint 0
 *   run        varuint count (1..SLICE), a key encoding byte (state-key-encoding.ts), then count
 *              pairs of key and value, the value written by the state's codec (state-value-codec.ts)
 *
 * Integers are LEB128 varints and everything is little-endian (DataOutput). A run is one slice
 * of the copy-on-write snapshot, which is why the writer can yield between two runs: the task
 * thread goes on processing records while the file is written, and `signal` stops the writer
 * there. A reader of some key groups reads only their bytes, checks their checksums and decodes
 * them straight into its tables.
 */
export const KEYED_STATE_FILE_FORMAT = 2;
const MAGIC = Uint8Array.from([0x57, 0x45, 0x49, 0x52, 0x4b, 0x53, 0x46, KEYED_STATE_FILE_FORMAT]);
const HEADER_BYTES = MAGIC.length;
/** Entries per run. */
const SLICE = 2048;
/** Bytes gathered before they are written: a write per slice cost tens of microseconds each. */
const FLUSH_BYTES = 1 << 20;
/** Bytes written between two background syncs (BackgroundSync): the disk takes them while the next ones are encoded. */
const SYNC_BYTES = 4 << 20;
/** Longest stretch of encoding without giving the task thread a turn. */
const YIELD_MS = 2;

interface TableToWrite {
  readonly info: StoredStateInfo;
  readonly codec: StateValueCodec;
  readonly snapshot: CapturedKeyedState['tables'][number]['snapshot'];
  /** Values the table saved as records changed them, encoded then (snapshots that offer saveTo). */
  readonly saved: SavedValueRuns | undefined;
}

/**
 * `signal` aborts the write between two runs (the checkpoint expired or was aborted): the
 * snapshot is released at once, so the writer must not read from it any more. A value that its
 * state's serializer cannot write fails the write with a SerializationError naming the operator
 * uid, the state, the key and where in the value.
 */
export async function writeKeyedStateFile(path: string, captured: CapturedKeyedState, signal?: AbortSignal): Promise<KeyedStateHandle> {
  if (captured.writeFile !== undefined) return captured.writeFile(path, signal);
  const groups = captured.keyGroupRange.end - captured.keyGroupRange.start + 1;
  const tables: TableToWrite[] = captured.tables.map((t) => {
    const snapshot = snapshotOf(t.descriptor.serializer);
    const codec = stateValueCodec(snapshot, t.descriptor.serializer);
    let saved: SavedValueRuns | undefined;
    if (t.snapshot.saveTo !== undefined) {
      // A schemaless codec remembers what its block announced: one per block. The others keep no state.
      saved = new SavedValueRuns(groups, SLICE, codec.encoding === 'schemaless' ? () => stateValueCodec(snapshot, t.descriptor.serializer) : () => codec);
      t.snapshot.saveTo(saved.sink);
    }
    return {
      info: { name: t.descriptor.name, kind: t.descriptor.kind, serializer: snapshot.kind, version: snapshot.version, snapshot },
      codec,
      snapshot: t.snapshot,
      saved,
    };
  });
  const fh = await open(path, 'w');
  const syncing = new BackgroundSync(fh, path, SYNC_BYTES);
  const out = DataOutput.growable(FLUSH_BYTES + (FLUSH_BYTES >> 2));
  out.writeRaw(MAGIC);
  const keyGroups: Array<{ keyGroup: number; offset: number; length: number; crc32: number }> = [];
  const keys: Key[] = new Array(SLICE);
  const values: unknown[] = new Array(SLICE);
  /** Bytes already in the file; `out` holds the ones after them. */
  let flushed = 0;
  let fileCrc = 0;
  /** The checksum of the current key group's bytes that were flushed, and where the rest starts in `out`. */
  let groupCrc = 0;
  let groupFrom = HEADER_BYTES;
  let entries = 0;
  let lastYield = performance.now();
  const flush = async (): Promise<void> => {
    const bytes = out.buf.subarray(0, out.pos);
    fileCrc = crc32(bytes, fileCrc);
    groupCrc = crc32(bytes.subarray(groupFrom), groupCrc);
    // The awaited write also lets the task thread process records.
    await writeFully(fh, bytes, { path, offset: flushed });
    flushed += out.pos;
    syncing.wrote(flushed);
    out.pos = 0;
    groupFrom = 0;
    lastYield = performance.now();
  };
  try {
    for (let index = 0; index < groups; index++) {
      const keyGroup = captured.keyGroupRange.start + index;
      const start = flushed + out.pos;
      for (let s = 0; s < tables.length; s++) {
        const table = tables[s]!;
        let started = false;
        for (const n of table.snapshot.keyGroupEntries(index, SLICE, keys, values)) {
          if (!started) {
            out.writeVarUint(s);
            out.writeVarUint(keyGroup);
            table.codec.startBlock();
            started = true;
          }
          writeRun(out, keys, values, n, table.codec, captured.uid, table.info.name);
          entries += n;
          if (out.pos >= FLUSH_BYTES) await flush();
          else if (performance.now() - lastYield >= YIELD_MS) {
            await new Promise((resolve) => setImmediate(resolve));
            lastYield = performance.now();
          }
          signal?.throwIfAborted();
        }
        if (started) out.writeVarUint(0);
        // After the walk: values saved while it went on (of entries it had not reached) are in it too.
        if (table.saved !== undefined) entries += table.saved.writeBlock(index, s, keyGroup, out);
      }
      const end = flushed + out.pos;
      if (end > start) keyGroups.push({ keyGroup, offset: start, length: end - start, crc32: crc32(out.buf.subarray(groupFrom, out.pos), groupCrc) });
      groupCrc = 0;
      groupFrom = out.pos;
    }
    if (out.pos > 0) await flush();
    await syncing.finish(flushed);
  } finally {
    await syncing.settle();
    await fh.close();
  }
  return { file: path, format: KEYED_STATE_FILE_FORMAT, keyGroups, states: tables.map((t) => t.info), entries, bytes: flushed, crc32: fileCrc };
}

/** One run: the key encoding its keys allow, then the pairs (a loop per encoding, so no switch per key). */
function writeRun(out: DataOutput, keys: readonly Key[], values: readonly unknown[], n: number, codec: StateValueCodec, uid: string, state: string): void {
  const encoding = keyEncodingOf(keys, n);
  loadAhead(values, n);
  out.writeVarUint(n);
  out.writeByte(encoding);
  const encode = codec.encode;
  let i = 0;
  try {
    if (encoding === KEYS_STRING) {
      for (; i < n; i++) {
        out.writeString(keys[i] as string);
        encode(values[i], out);
      }
    } else if (encoding === KEYS_INT) {
      for (; i < n; i++) {
        out.writeInt(keys[i] as number);
        encode(values[i], out);
      }
    } else if (encoding === KEYS_DOUBLE) {
      for (; i < n; i++) {
        out.writeDouble(keys[i] as number);
        encode(values[i], out);
      }
    } else {
      for (; i < n; i++) {
        writeTaggedKey(keys[i], out);
        encode(values[i], out);
      }
    }
  } catch (e) {
    if (e instanceof SerializationError) throw e.withContext({ operatorUid: uid, state, key: describeValue(keys[i]) });
    throw e;
  }
}

/**
 * Reads the first line of each value to encode in one tight loop, so that the cache misses of a
 * run's values (objects scattered over the heap, the records a table keeps) overlap; the encoding
 * loop does too much per value for the CPU to run ahead into the next ones. keyEncodingOf has
 * loaded the keys already.
 */
function loadAhead(values: readonly unknown[], n: number): void {
  let objects = 0;
  for (let i = 0; i < n; i++) if (typeof values[i] === 'object') objects++;
  loadedAhead = (loadedAhead + objects) | 0;
}
/** What loadAhead counted, kept so that no compiler drops its loads as unused. */
let loadedAhead = 0;

/**
 * Reads the key groups of `range` from a handle's file, of whichever format it is: format 2
 * reads only the bytes of those key groups, format 1 (metadata format 3) reads the whole file.
 */
export function readKeyedStateFile(handle: KeyedStateHandle, resolvePath: (file: string) => string, range: KeyGroupRange): KeyedStateFileReader {
  const format = handle.format ?? 1;
  if (format === 1) return readLegacyKeyedStateFile(handle, resolvePath, range);
  const path = resolvePath(handle.file);
  if (format !== KEYED_STATE_FILE_FORMAT) throw new CheckpointCorruptedError(path, `keyed state file format ${format} is newer than this weir reads (${KEYED_STATE_FILE_FORMAT})`);
  const states = handle.states.map(storedStateInfo);
  const inRange = handle.keyGroups.filter((g) => g.keyGroup >= range.start && g.keyGroup <= range.end);
  // The header and size are checked now; each key group's bytes are read when it is asked for, so
  // a restore holds one key group's bytes at a time, not the file's (state larger than memory).
  if (inRange.length > 0) checkFile(path, handle);
  const codecs: Array<StateValueCodec | undefined> = [];
  const codecOf = (s: number): StateValueCodec => {
    let codec = codecs[s];
    if (codec === undefined) {
      try {
        codec = codecs[s] = stateValueCodec(states[s]!.snapshot);
      } catch (e) {
        throw new CheckpointCorruptedError(path, `state '${states[s]!.name}' cannot be read: ${(e as Error).message}`, { cause: e });
      }
    }
    return codec;
  };
  const input = new DataInput(new Uint8Array(0));
  return {
    path,
    states,
    keyGroups: inRange.map((g) => g.keyGroup),
    readKeyGroup(keyGroup, target) {
      const g = inRange.find((x) => x.keyGroup === keyGroup);
      if (!g) return;
      const buf = readSpan(path, g.offset, g.offset + g.length);
      const base = g.offset;
      const from = 0;
      const to = g.length;
      if (g.crc32 !== undefined) {
        const actual = crc32(buf);
        if (actual !== g.crc32) throw new CheckpointCorruptedError(path, `checksum mismatch in key group ${keyGroup} (bytes ${g.offset}..${g.offset + g.length}: expected ${g.crc32}, found ${actual})`, { offset: g.offset });
      }
      input.reset(buf, from, to);
      try {
        while (input.pos < to) readBlock(input, keyGroup, states, codecOf, target, base);
      } catch (e) {
        if (!(e instanceof SerializationError)) throw e;
        const at = base + (e.offset ?? input.pos);
        throw new CheckpointCorruptedError(path, `cannot be read at byte ${at} (key group ${keyGroup}): ${e.problem}`, { offset: at, cause: e });
      }
    },
  };
}

function readBlock(
  input: DataInput,
  keyGroup: number,
  states: readonly StoredStateInfo[],
  codecOf: (s: number) => StateValueCodec,
  target: Parameters<KeyedStateFileReader['readKeyGroup']>[1],
  base: number,
): void {
  const at = input.pos;
  const s = input.readVarUint();
  const kg = input.readVarUint();
  const state = states[s];
  if (state === undefined || kg !== keyGroup) input.fail(`a block of state ${s}, key group ${kg}, where the handle has key group ${keyGroup} of ${states.length} states (file offset ${base + at})`, at);
  const decode = codecOf(s).decode;
  const put = target(state, kg);
  for (;;) {
    // A pair takes at least two bytes: a larger count is corruption, not an allocation.
    const n = input.readLength(2);
    if (n === 0) return;
    const encoding = input.readByte();
    if (!isKeyEncoding(encoding)) input.fail(`a key encoding ${encoding}`, input.pos - 1);
    if (encoding === KEYS_STRING) for (let i = 0; i < n; i++) put(input.readString(), decode(input));
    else if (encoding === KEYS_INT) for (let i = 0; i < n; i++) put(input.readInt(), decode(input));
    else if (encoding === KEYS_DOUBLE) for (let i = 0; i < n; i++) put(input.readDouble(), decode(input));
    else for (let i = 0; i < n; i++) put(readTaggedKey(input), decode(input));
  }
}

/** Checks a file's size and header: a short file is named with where it ends. */
function checkFile(path: string, handle: KeyedStateHandle): void {
  const fd = openStateFile(path);
  try {
    const size = fstatSync(fd).size;
    if (size < handle.bytes) throw new CheckpointCorruptedError(path, `truncated at byte ${size}: the checkpoint recorded ${handle.bytes} bytes`, { offset: size });
    if (size > handle.bytes) throw new CheckpointCorruptedError(path, `has ${size} bytes, the checkpoint recorded ${handle.bytes}`, { offset: handle.bytes });
    const header = new Uint8Array(HEADER_BYTES);
    if (readFully(fd, header, 0) < HEADER_BYTES || !header.every((b, i) => b === MAGIC[i])) {
      throw new CheckpointCorruptedError(path, `not a keyed state file of format ${KEYED_STATE_FILE_FORMAT} (its first bytes are not "WEIRKSF" ${KEYED_STATE_FILE_FORMAT})`, { offset: 0 });
    }
  } finally {
    closeSync(fd);
  }
}

/** Bytes [start, end) of the file. */
function readSpan(path: string, start: number, end: number): Uint8Array {
  const fd = openStateFile(path);
  try {
    const buf = Buffer.allocUnsafe(end - start);
    const n = readFully(fd, buf, start);
    if (n < buf.length) throw new CheckpointCorruptedError(path, `truncated at byte ${start + n}: bytes ${start}..${end} were recorded`, { offset: start + n });
    return buf;
  } finally {
    closeSync(fd);
  }
}

/** readSync takes a length that fits an int32: larger reads go in steps of this. */
const MAX_READ = 1 << 30;

function readFully(fd: number, buf: Uint8Array, position: number): number {
  let read = 0;
  while (read < buf.length) {
    const n = readSync(fd, buf, read, Math.min(MAX_READ, buf.length - read), position + read);
    if (n === 0) break;
    read += n;
  }
  return read;
}
