import type { KeyedStateBackend } from '../state/keyed-state-backend.ts';
import type { CapturedOperatorState } from '../state/captured-state.ts';
import type { ChannelStateKey } from './channel-state-key.ts';
import type { JobLocationContents } from './incremental/job-location-contents.ts';
import type { CheckpointMetadata } from './checkpoint-metadata.ts';
import type { ChannelStateHandle, OperatorRestoreState, TaskRestoreState, TaskStateSnapshot } from './state-handles.ts';

/**
 * Where checkpoints and savepoints live (Flink's CheckpointStorage), in two views: the
 * coordinator's (locations, `_metadata`, discarding) and each subtask's (its own state files).
 * Locations are strings the implementation understands: directories for the filesystem one.
 */
export interface CheckpointStorage {
  /** `<execution.checkpointing.dir>/<job-id>`, or a temporary one of the job's own. */
  readonly jobLocation: string;
  /** The job's location is a temporary one of its own: nobody else could find what it keeps. */
  readonly temporary: boolean;
  /**
   * Prepares the job's location. When `checkpointing`, it is made now: a location that can never
   * hold a checkpoint fails the job at its start, naming it.
   */
  initialize(checkpointing: boolean): Promise<void>;
  checkpointLocation(checkpointId: number): string;
  /** A new savepoint's own location under `base`, made now, so a target that cannot hold one fails before anything stops. */
  savepointLocation(base: string): Promise<string>;
  /** Writes `_metadata` whole (or throws): only then is the checkpoint complete. */
  writeMetadata(location: string, metadata: CheckpointMetadata): Promise<void>;
  /** Reads and verifies `_metadata` and every file it refers to, for a restore. */
  readForRestore(pointer: string): Promise<{ metadata: CheckpointMetadata; location: string }>;
  /** Removes a checkpoint that did not complete, or one no longer retained (Flink: discardState). */
  discard(location: string): Promise<void>;
  /**
   * Deletes shared files of incremental checkpoints that no retained checkpoint references any
   * more (shared-state-registry.ts), by location (sharedFileLocation). Only files of checkpoints
   * the job retains are ever counted: its own, or one it claimed (CLAIM); another job's files are
   * never ours to delete (NO_CLAIM).
   */
  discardShared(files: readonly string[]): Promise<void>;
  /**
   * Lists the job's location: its checkpoints (with each `_metadata` that reads back) and its
   * shared files (their locations). A JobManager that starts again counts the shared files anew from it.
   */
  scanJobLocation(): Promise<JobLocationContents>;
  /** The job ended: removes what only it could find (a temporary location of its own). */
  discardJob(): Promise<void>;
  /** The job ended and retention is done: lets go of connections (an object store's). */
  close?(): Promise<void>;
}

/** Where one subtask's snapshot goes. */
export interface CheckpointTarget {
  readonly checkpointId: number;
  readonly location: string;
  /** Where the job's shared files go (incremental checkpoints); absent: `shared/` beside the checkpoint's location. */
  readonly sharedLocation?: string;
}

export interface SubtaskInfo {
  readonly vertexId: string;
  readonly subtask: number;
  /** The uid of the chain's head: channel state is filed under it. */
  readonly headUid: string;
}

/** In-flight records of an unaligned snapshot, by channel state key. */
export interface ChannelStateCapture {
  readonly inputs: ReadonlyArray<readonly [ChannelStateKey, unknown[]]>;
  readonly outputs: ReadonlyArray<readonly [ChannelStateKey, unknown[]]>;
}

/** A subtask's view: it writes its own state files; only the handles travel to the coordinator. */
export interface CheckpointStorageWorkerView {
  /**
   * The asynchronous part of a snapshot: serialize what the synchronous part captured and write
   * it. `signal` aborts when the checkpoint expires or is aborted: the writer stops and must not
   * read `captured` any more.
   */
  writeSnapshot(target: CheckpointTarget, captured: readonly CapturedOperatorState[], task: SubtaskInfo, signal: AbortSignal): Promise<TaskStateSnapshot>;
  /** Unaligned checkpoints: persists in-flight records per channel key; returns the handles. */
  writeChannelState(
    target: CheckpointTarget,
    task: SubtaskInfo,
    channels: ChannelStateCapture,
  ): Promise<{ inputChannels: Record<string, ChannelStateHandle>; outputChannels: Record<string, ChannelStateHandle> }>;
  readChannelState(handle: ChannelStateHandle, location: string): unknown[];
  /** Puts keyed state back into a backend, for the backend's key groups (asynchronously: it may be large). */
  restoreKeyed(backend: KeyedStateBackend, state: OperatorRestoreState, location: string): Promise<void>;
  /**
   * Brings what a subtask restores from to where it can be read synchronously (channel state is
   * replayed in synchronous reads): storages that are not a file system download it. The task
   * restores from the returned location and discards it once restored.
   */
  stageRestore?(restore: TaskRestoreState): Promise<StagedRestore>;
  /** The TaskManager shuts down: lets go of connections. */
  close?(): Promise<void>;
}

export interface StagedRestore {
  /** Where the staged copy is: a local directory with the files the handles name. */
  readonly location: string;
  /** Removes the staged copy (the stored checkpoint stays). */
  discard(): Promise<void>;
}
