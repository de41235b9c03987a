import type { TaskInfo } from './functions.ts';

/** The job's checkpointing, as a sink sees it: what it must hold on to between a pre-commit and its commit. */
export interface SinkCheckpointing {
  /** execution.checkpointing.interval in ms; null: no periodic checkpoints. */
  readonly intervalMs: number | null;
  /** execution.checkpointing.timeout in ms. */
  readonly timeoutMs: number;
}

export interface SinkContext extends TaskInfo {
  /** The job's checkpointing settings (absent where a harness runs the sink without a job). */
  readonly checkpointing?: SinkCheckpointing;
}

export interface Sink<T, WriterState = unknown> {
  /**
   * How writer state is handed out on restore: 'split' gives each subtask a share, 'union' gives
   * every subtask all of it (a writer that commits its share and cleans up after the others).
   */
  readonly stateRedistribution?: 'split' | 'union';
  createWriter(ctx: SinkContext, restored: readonly WriterState[]): SinkWriter<T, WriterState> | Promise<SinkWriter<T, WriterState>>;
}

/**
 * Sink writers are called from the task's mailbox loop. A writer that has to wait for I/O
 * returns a promise from ready(); the task then takes no more input until it resolves, which is
 * how a slow sink pushes back on the whole pipeline.
 */
export interface SinkWriter<T, WriterState = unknown> {
  write(value: T): void;
  ready?(): Promise<void> | undefined;
  /** All input is consumed: write out what is buffered. */
  flush?(): void | Promise<void>;
  /** Part of a checkpoint: what the writer needs to find its data again after a restore. */
  snapshotState?(checkpointId: number): WriterState[] | Promise<WriterState[]>;
  notifyCheckpointComplete?(checkpointId: number): void | Promise<void>;
  notifyCheckpointAborted?(checkpointId: number): void | Promise<void>;
  /** The job finished: release resources (all data is committed by now). */
  close?(): void | Promise<void>;
  /** The attempt was cancelled or failed: release resources and commit nothing. */
  abort?(): void | Promise<void>;
}
