import type { KeyedStateHandle } from '../state-handles.ts';
import { isSharedFile, keyedHandleFiles } from './shared-state-files.ts';

/** The full size of a keyed state handle: every file a restore reads (Flink's state size). */
export function keyedBytes(handle: KeyedStateHandle | null): number {
  return handle === null ? 0 : keyedHandleFiles(handle).reduce((n, h) => n + h.bytes, 0);
}

/** The bytes of a keyed state handle that checkpoint `checkpointId` wrote (Flink's checkpointed size): a file of its own, or the shared files written for it. */
export function keyedBytesWritten(handle: KeyedStateHandle | null, checkpointId: number): number {
  if (handle === null) return 0;
  return keyedHandleFiles(handle).reduce((n, h) => n + (!isSharedFile(h.file) || h.writtenBy === checkpointId ? h.bytes : 0), 0);
}
