import type { StateDescriptor } from '../api/state-descriptors.ts';
import type { KeyGroupRange } from './key-group.ts';
import type { OperatorStateEntry } from './operator-state-backend.ts';
import type { TableSnapshot } from './state-table.ts';

/**
 * The result of a snapshot's synchronous part for one operator: cheap views (copy-on-write
 * table snapshots, small copied lists) that the asynchronous part serializes and writes.
 */
export interface CapturedKeyedState {
  /** The operator's uid, for the errors of values that its serializers cannot write. */
  readonly uid: string;
  readonly keyGroupRange: KeyGroupRange;
  readonly maxParallelism: number;
  readonly tables: ReadonlyArray<{ readonly descriptor: StateDescriptor; readonly snapshot: TableSnapshot<unknown> }>;
}

export interface CapturedOperatorState {
  readonly uid: string;
  readonly operatorId: string;
  readonly keyed: CapturedKeyedState | null;
  readonly operator: ReadonlyMap<string, OperatorStateEntry>;
}
