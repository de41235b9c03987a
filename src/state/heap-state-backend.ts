import { HeapKeyedStateBackend } from './heap-keyed-state-backend.ts';
import type { MaterializationPolicy } from './incremental/incremental-snapshots.ts';
import { OperatorStateBackend } from './operator-state-backend.ts';
import type { StateBackend } from './state-backend.ts';

/**
 * `state.backend.type: heap` (the default): every state in the TaskManager's memory. With
 * `incremental` (execution.checkpointing.incremental), checkpoints write the keys changed since
 * the one they build on, and a full base after `maxDeltas` deltas.
 */
export function createHeapStateBackend(incremental: MaterializationPolicy | null): StateBackend {
  return {
    type: 'heap',
    createKeyedStateBackend: (p) => new HeapKeyedStateBackend(p.keyGroupRange, p.maxParallelism, p.uid, p.describe, p.now, incremental),
    createOperatorStateBackend: (restored, uid) => new OperatorStateBackend(restored, uid),
  };
}

/** The heap backend with full checkpoints. */
export const heapStateBackend: StateBackend = createHeapStateBackend(null);
