import { open, readFile, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { crc32 } from 'node:zlib';
import { Packr, Unpackr } from 'msgpackr';
import type { ChannelStateHandle, KeyedStateHandle, OperatorStateMap } from './state-handles.ts';
import { makeDirectories } from '../fs/make-directories.ts';
import { renameFile } from '../fs/rename-file.ts';
import { syncDirectory } from '../fs/sync-directory.ts';
import { writeFully } from '../fs/write-fully.ts';
import { CheckpointCorruptedError } from './checkpoint-storage-error.ts';

/**
 * `_metadata`: what a checkpoint or savepoint holds, organized by operator uid. Written last and
 * atomically (temp file, fsync, rename), so a directory with a valid `_metadata` is complete.
 * Layout: 8 bytes magic, u32 format version, u32 crc32 of the body, u32 body length, MessagePack body.
 */
export const METADATA_FILE = '_metadata';
/**
 * Format versions: 1 (the first): operators by uid with their subtasks' handles. 2: adds the
 * job's connections (`edges`), which unaligned in-flight data is tied to. Readers accept every
 * version up to the current one; a version-1 snapshot simply has no connections recorded.
 * 3: adds the sources' split enumerator states (`coordinators`, by source uid); a source with an
 * enumerator restored from an older snapshot starts its enumerator afresh.
 * 4: keyed state files of format 2 (written by the states' serializers, keyed-state-file.ts;
 * handles say `format: 2` and carry a crc32 per key group), and each state's serializer snapshot
 * (kind, version, schema) beside its name in the handle, which a restore checks the job's
 * descriptors against; operator list state with a declared type holds its values as the bytes of
 * its codec, with its snapshot. Handles of older versions have no `format` (format 1, MessagePack
 * frames) and no snapshots (read as what their serializer id and version say: storedStateInfo).
 * 5: incremental checkpoints: a keyed state handle may name a shared file (`../shared/<name>`,
 * with `writtenBy`) and carry `deltas`, the files of changes applied after it in order.
 */
export const METADATA_VERSION = 4;
/**
 * The format of `_metadata` that names shared files (incremental checkpoints); every other
 * checkpoint and every savepoint is still written as METADATA_VERSION, so a weir that predates
 * incremental checkpoints reads them. Readers accept up to this one.
 */
export const INCREMENTAL_METADATA_VERSION = 5;
const MAGIC = Buffer.from('WEIRMETA', 'ascii');

export interface SubtaskStateMetadata {
  readonly subtask: number;
  readonly keyed: KeyedStateHandle | null;
  readonly operator: OperatorStateMap;
  /** Unaligned checkpoints: the in-flight data by the text of each channel's ChannelStateKey (read back with parseChannelStateKey). */
  readonly inputChannels?: Record<string, ChannelStateHandle>;
  readonly outputChannels?: Record<string, ChannelStateHandle>;
}

export interface OperatorStateMetadata {
  readonly uid: string;
  readonly operatorId: string;
  readonly name: string;
  readonly vertexId: string;
  readonly parallelism: number;
  readonly maxParallelism: number;
  readonly subtasks: SubtaskStateMetadata[];
}

export interface CheckpointMetadata {
  readonly formatVersion: number;
  readonly jobId: string;
  readonly checkpointId: number;
  readonly type: 'checkpoint' | 'savepoint';
  readonly unaligned: boolean;
  readonly triggeredAt: number;
  readonly completedAt: number;
  readonly operators: OperatorStateMetadata[];
  /** The job's connections, which in-flight data of unaligned checkpoints is tied to. */
  readonly edges?: ReadonlyArray<{ readonly id: number; readonly source: string; readonly target: string; readonly partitioner: string }>;
  /** Split enumerator states by source operator uid, taken when the checkpoint was triggered. */
  readonly coordinators?: Record<string, unknown>;
}

const packr = new Packr({ useRecords: false, moreTypes: true });

/** How many bytes a value takes in `_metadata`, encoded as writeMetadata encodes it. */
export function metadataBytes(value: unknown): number {
  return packr.pack(value).length;
}

/**
 * Writes `_metadata` whole or throws: every byte written (short writes are continued), fsynced,
 * renamed into place, the directory fsynced, and the file read back and verified. Only then may
 * the checkpoint count as complete and older ones be deleted.
 */
export async function writeMetadata(dir: string, metadata: CheckpointMetadata, version = metadata.formatVersion >= INCREMENTAL_METADATA_VERSION ? INCREMENTAL_METADATA_VERSION : METADATA_VERSION): Promise<string> {
  await makeDirectories(dir);
  const body = packr.pack(metadata);
  const header = Buffer.alloc(20);
  MAGIC.copy(header, 0);
  header.writeUInt32BE(version, 8);
  header.writeUInt32BE(crc32(body), 12);
  header.writeUInt32BE(body.length, 16);
  const path = join(dir, METADATA_FILE);
  const tmp = `${path}.tmp-${process.pid}`;
  try {
    const fh = await open(tmp, 'w');
    try {
      await writeFully(fh, header, { path: tmp, offset: 0 });
      await writeFully(fh, body, { path: tmp, offset: header.length });
      await fh.sync();
    } finally {
      await fh.close();
    }
    await renameFile(tmp, path);
  } catch (e) {
    await unlink(tmp).catch(() => {});
    throw e;
  }
  await syncDirectory(dirname(path));
  await readMetadata(path);
  return path;
}

/** Reads and verifies `_metadata` in a checkpoint or savepoint directory (or the file itself). */
export async function readMetadata(pathOrDir: string): Promise<{ metadata: CheckpointMetadata; directory: string }> {
  const path = pathOrDir.endsWith(METADATA_FILE) ? pathOrDir : join(pathOrDir, METADATA_FILE);
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new CheckpointCorruptedError(path, code === 'ENOENT' ? 'no _metadata here: not a complete checkpoint or savepoint' : (e as Error).message);
  }
  if (bytes.length < 20 || !bytes.subarray(0, 8).equals(MAGIC)) throw new CheckpointCorruptedError(path, 'not a weir _metadata file');
  const version = bytes.readUInt32BE(8);
  if (version > INCREMENTAL_METADATA_VERSION) {
    throw new CheckpointCorruptedError(path, `written by a newer weir (metadata format ${version}; this weir reads up to ${INCREMENTAL_METADATA_VERSION})`);
  }
  const length = bytes.readUInt32BE(16);
  const body = bytes.subarray(20);
  if (body.length !== length) throw new CheckpointCorruptedError(path, `truncated: body has ${body.length} of ${length} bytes`);
  if (crc32(body) !== bytes.readUInt32BE(12)) throw new CheckpointCorruptedError(path, 'checksum mismatch');
  const metadata = upgradeMetadata(new Unpackr({ useRecords: false, moreTypes: true }).unpack(body) as CheckpointMetadata, version);
  return { metadata, directory: dirname(path) };
}

/** Brings metadata of an older format version into the current shape. */
function upgradeMetadata(m: CheckpointMetadata, version: number): CheckpointMetadata {
  if (version >= 2) return m;
  return { ...m, formatVersion: version, edges: undefined };
}
