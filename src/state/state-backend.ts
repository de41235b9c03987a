import type { KeyGroupRange } from './key-group.ts';
import type { KeyedStateBackend } from './keyed-state-backend.ts';
import type { OperatorStateBackend, OperatorStateEntry } from './operator-state-backend.ts';

/** The values of `state.backend.type`. */
export type StateBackendType = 'heap' | 'lmdb';

/** Who a keyed state backend is for: one keyed operator in one subtask of one attempt. */
export interface KeyedStateBackendParameters {
  readonly jobId: string;
  readonly uid: string;
  readonly subtask: number;
  readonly attempt: number;
  readonly keyGroupRange: KeyGroupRange;
  readonly maxParallelism: number;
  /** Names the subtask and operator in errors ("subtask 2 of 'count'"). */
  readonly describe: () => string;
  /** The processing time state TTL stamps and expires entries by (Date.now when not given; tests give a manual clock's). */
  readonly now?: () => number;
}

/**
 * Where an operator chain gets its state from (Flink's StateBackend): the one factory of keyed
 * and operator state backends, chosen by `state.backend.type`. Operator state (source splits,
 * sink transactions) is small and stays on the heap with every backend, as in Flink.
 */
export interface StateBackend {
  readonly type: StateBackendType;
  createKeyedStateBackend(parameters: KeyedStateBackendParameters): KeyedStateBackend;
  createOperatorStateBackend(restored: ReadonlyMap<string, OperatorStateEntry> | undefined, uid: string): OperatorStateBackend;
  /** Loads what the backend's stores need (a native module) before a deployment creates any. */
  prepare?(): Promise<void>;
}
