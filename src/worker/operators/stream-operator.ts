import type { TaskInfo } from '../../api/functions.ts';
import type { KeyedStateBackend } from '../../state/keyed-state-backend.ts';
import type { OperatorStateBackend } from '../../state/operator-state-backend.ts';

export interface Output {
  collect(value: unknown): void;
}

/** What an operator is given when its task starts. */
export interface OperatorContext extends TaskInfo {
  readonly output: Output;
  /** Present for keyed operators: state scoped to the current key. */
  readonly keyedState: KeyedStateBackend | undefined;
  readonly operatorState: OperatorStateBackend;
}

/**
 * A running operator inside a task's chain. All calls come from the task's mailbox thread, one
 * at a time, so an operator never races with a snapshot of its own state.
 */
export interface StreamOperator {
  open(ctx: OperatorContext): void | Promise<void>;
  processElement(value: unknown): void;
  /** All input has arrived: emit or write out what is buffered. */
  endInput(): void | Promise<void>;
  /** A promise while the operator cannot take more input (a sink waiting on I/O). */
  ready(): Promise<void> | undefined;
  /** Synchronous part of a snapshot: operator state that is not keyed (sinks' pending work). */
  prepareSnapshot(checkpointId: number): void | Promise<void>;
  notifyCheckpointComplete(checkpointId: number): void | Promise<void>;
  notifyCheckpointAborted(checkpointId: number): void | Promise<void>;
  /** A clean end: the job finished. */
  close(): void | Promise<void>;
  /** Cancellation or failure: release resources without finishing any work. */
  dispose(): void | Promise<void>;
}

/** Defaults for operators that keep no state and do no I/O. */
export abstract class AbstractStreamOperator implements StreamOperator {
  protected output!: Output;

  open(ctx: OperatorContext): void | Promise<void> {
    this.output = ctx.output;
  }
  abstract processElement(value: unknown): void;
  endInput(): void | Promise<void> {}
  ready(): Promise<void> | undefined {
    return undefined;
  }
  prepareSnapshot(_checkpointId: number): void | Promise<void> {}
  notifyCheckpointComplete(_checkpointId: number): void | Promise<void> {}
  notifyCheckpointAborted(_checkpointId: number): void | Promise<void> {}
  close(): void | Promise<void> {}
  dispose(): void | Promise<void> {
    return this.close();
  }
}
