import { HeapKeyedStateBackend } from './heap-keyed-state-backend.ts';
import { OperatorStateBackend } from './operator-state-backend.ts';
import type { StateBackend } from './state-backend.ts';

/** `state.backend.type: heap` (the default): every state in the TaskManager's memory. */
export const heapStateBackend: StateBackend = {
  type: 'heap',
  createKeyedStateBackend: (p) => new HeapKeyedStateBackend(p.keyGroupRange, p.maxParallelism, p.uid, p.describe, p.now),
  createOperatorStateBackend: (restored, uid) => new OperatorStateBackend(restored, uid),
};
