import type { RedistributionMode } from '../state/operator-state-backend.ts';
import type { SerializerSnapshot } from '../serialization/serializer-snapshot.ts';
import type { KeyedStateInfo } from '../state/stored-state-info.ts';
import type { ChannelStateKey } from './channel-state-key.ts';

/**
 * State handles: where a subtask's snapshot lies in the checkpoint storage. Subtasks write their
 * state and return handles; only the handles travel to the coordinator, which files them in
 * `_metadata` and hands them back, reassigned, on restore.
 */

/**
 * Operator list state: name -> values and how they are redistributed. A state with a declared
 * type (metadata format 4) holds each value as the bytes its codec wrote, and `serializer` says
 * which; without one, values are stored as they are (MessagePack, inside `_metadata`).
 */
export type OperatorStateMap = Record<string, { readonly mode: RedistributionMode; readonly values: unknown[]; readonly serializer?: SerializerSnapshot }>;

/**
 * Where one subtask's keyed state of one operator lies: a file and the byte range of each key
 * group. `format` is the state file's (absent: 1, MessagePack frames, as metadata format 3 wrote
 * them; 2: blocks written by the states' serializers, keyed-state-file.ts), and format 2 records
 * a checksum per key group, so that a subtask reading only its key groups can check them.
 */
export interface KeyedStateHandle {
  readonly file: string;
  readonly format?: number;
  readonly keyGroups: ReadonlyArray<{ readonly keyGroup: number; readonly offset: number; readonly length: number; readonly crc32?: number }>;
  readonly states: readonly KeyedStateInfo[];
  readonly entries: number;
  readonly bytes: number;
  readonly crc32: number;
  /**
   * Incremental checkpoints: the file is a shared one (`../shared/<name>`, shared-state-files.ts)
   * and this is the checkpoint that wrote it; a file is written for one checkpoint only.
   */
  readonly writtenBy?: number;
  /**
   * Incremental checkpoints: this handle's file is a full base, and these are the files of the
   * changes since, oldest first (keyed-state-file.ts's format; a state listed with kind
   * `removed` holds keys removed since the file before). A restore reads the base and applies
   * each delta, key group by key group (incremental-keyed-state-reader.ts).
   */
  readonly deltas?: readonly KeyedStateHandle[];
}

/** In-flight data of one channel captured by an unaligned checkpoint. */
export interface ChannelStateHandle {
  readonly file: string;
  readonly offset: number;
  readonly length: number;
  readonly records: number;
  readonly crc32: number;
}

export interface OperatorSubtaskState {
  readonly operatorId: string;
  readonly uid: string;
  readonly keyed: KeyedStateHandle | null;
  readonly operator: OperatorStateMap;
}

export interface TaskStateSnapshot {
  readonly operators: OperatorSubtaskState[];
  /** Unaligned checkpoints: per input channel and per output channel, by the text of their ChannelStateKey. */
  readonly inputChannels: Record<string, ChannelStateHandle>;
  readonly outputChannels: Record<string, ChannelStateHandle>;
}

/** State handed to one operator of one subtask on restore (possibly gathered from several old subtasks). */
export interface OperatorRestoreState {
  readonly keyed: KeyedStateHandle[];
  readonly operator: OperatorStateMap;
}

export interface TaskRestoreState {
  readonly checkpointId: number;
  /** The directory of the checkpoint or savepoint; handle file names are relative to it. */
  readonly directory: string;
  /** By operator uid. */
  readonly operators: Record<string, OperatorRestoreState>;
  /** In-flight data of an unaligned checkpoint, replayed before any new input or output. */
  readonly channels: RestoredChannelState | null;
}

/**
 * Keyed by the channels' ChannelStateKeys (for an input channel the producer, for an output
 * channel the consumer, on its edge). When the parallelism changed, a subtask gets every old subtask's channel state of its vertex and
 * keeps the records that are now its own (by key group, or an even share for rebalance edges).
 */
export interface RestoredChannelState {
  readonly rescaled: boolean;
  readonly inputs: ReadonlyArray<{ readonly key: ChannelStateKey; readonly handle: ChannelStateHandle }>;
  readonly outputs: ReadonlyArray<{ readonly key: ChannelStateKey; readonly handle: ChannelStateHandle }>;
}
