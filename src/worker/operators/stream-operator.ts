import type { SinkCheckpointing } from '../../api/sink.ts';
import type { TaskInfo } from '../../api/functions.ts';
import type { RecordTimestamp } from '../../network/record-timestamp.ts';
import type { CheckpointType } from '../../network/stream-event.ts';
import type { KeyedStateBackend } from '../../state/keyed-state-backend.ts';
import type { OperatorStateBackend, OperatorStateEntry } from '../../state/operator-state-backend.ts';
import type { ProcessingTimeProvider } from '../processing-time-service.ts';
import type { InputThrottle, MailboxExecutor } from '../operator-mails.ts';

export interface Output {
  collect(value: unknown): void;
}

/** Where an operator's watermarks and watermark status go: the chained operators after it and its network outputs. */
export interface EventTimeOutput {
  emitWatermark(watermark: number): void;
  emitWatermarkStatus(idle: boolean): void;
}

/** An operator's own figures, read with the task's metrics (Flink's operator metric group). */
export interface OperatorMetrics {
  /** Window operators: records too late for any window and not sent to a late-data side output. */
  numLateRecordsDropped: number;
  /** The operator's event time: the last watermark it passed on (-Infinity: none yet). */
  currentOutputWatermark: number;
  /**
   * The operator's own figures (`figure` or `figure:subject`), read when the task reports: set by
   * operators that have some (a user function's metrics(), a sink's held schema changes).
   */
  figures?: () => Record<string, number>;
}

/** What an operator is given when its task starts. */
export interface OperatorContext extends TaskInfo {
  readonly output: Output;
  /** Present for keyed operators: state scoped to the current key. */
  readonly keyedState: KeyedStateBackend | undefined;
  readonly operatorState: OperatorStateBackend;
  /** The current record's timestamp, shared by the task's chain and writers. */
  readonly timestamps: RecordTimestamp;
  readonly eventTimeOutput: EventTimeOutput;
  /** The output of a side output tag (by id), or undefined when nothing consumes it (its records are dropped, as in Flink). */
  sideOutput(tagId: string): Output | undefined;
  /** The task's processing time; callbacks run as mail, and a failure in one is the operator's. */
  readonly processingTime: ProcessingTimeProvider;
  /** pipeline.auto-watermark-interval in ms (0: no periodic watermarks). */
  readonly autoWatermarkInterval: number;
  /** The job's checkpoint interval and timeout (sinks check their targets against them). */
  readonly checkpointing?: SinkCheckpointing;
  readonly metrics: OperatorMetrics;
  /** Runs work as the task's mail (results of async I/O); a failure in it is the operator's. */
  readonly mailboxExecutor: MailboxExecutor;
  /** Holds the task's input back while the operator cannot take more. */
  readonly inputThrottle: InputThrottle;
}

/**
 * A running operator inside a task's chain. All calls come from the task's mailbox thread, one
 * at a time, so an operator never races with a snapshot of its own state.
 */
export interface StreamOperator {
  open(ctx: OperatorContext): void | Promise<void>;
  processElement(value: unknown): void;
  /** Event time has reached `watermark` at this operator: fire what is due, then pass it on. */
  processWatermark(watermark: number): void;
  /** The operator's input went idle or active again: passed on. */
  processWatermarkStatus(idle: boolean): void;
  /** All input has arrived: emit or write out what is buffered. */
  endInput(): void | Promise<void>;
  /** A promise while the operator cannot take more input (a sink waiting on I/O). */
  ready(): Promise<void> | undefined;
  /** Synchronous part of a snapshot: operator state that is not keyed (sinks' pending work). */
  prepareSnapshot(checkpointId: number, type: CheckpointType): void | Promise<void>;
  /**
   * Work of the snapshot's asynchronous part (a sink's pre-commit: flush, PREPARE) that yields
   * operator state, merged over what the synchronous part captured; the subtask acknowledges the
   * checkpoint once it settles, and a rejection fails the task. Undefined: nothing to do.
   */
  snapshotAsync(checkpointId: number): Promise<ReadonlyMap<string, OperatorStateEntry>> | undefined;
  notifyCheckpointComplete(checkpointId: number): void | Promise<void>;
  notifyCheckpointAborted(checkpointId: number): void | Promise<void>;
  /**
   * The clean end (Flink 1.14+'s finish): the job finished and its final checkpoint is taken;
   * complete what is left (a sink's writer closes with its data written, a committing sink
   * commits its final input). Never on cancellation or failure; a failure here is the task's.
   */
  finish(): void | Promise<void>;
  /**
   * Always the last call (Flink's close): after finish() on a clean end, alone on cancellation or
   * failure. Releases resources (functions, timers, readers); work that did not finish is abandoned.
   */
  close(): void | Promise<void>;
}

/**
 * An operator with two inputs (Flink's TwoInputStreamOperator): the head of a vertex fed by
 * `connect`. Its first input's records come to processElement1, its second's to processElement2;
 * processElement is the first input's too. Watermarks come combined (the minimum over both inputs).
 */
export interface TwoInputStreamOperator extends StreamOperator {
  readonly inputCount: 2;
  processElement1(value: unknown): void;
  processElement2(value: unknown): void;
  /** Every channel of one input (0 or 1) has ended (Flink's BoundedMultiInput.endInput); endInput() follows when both have. */
  endInputOf?(input: number): void;
}

export function isTwoInputOperator(operator: StreamOperator): operator is TwoInputStreamOperator {
  return (operator as Partial<TwoInputStreamOperator>).inputCount === 2;
}

/** Defaults for operators that keep no state and do no I/O. */
export abstract class AbstractStreamOperator implements StreamOperator {
  protected output!: Output;
  protected eventTimeOutput!: EventTimeOutput;

  open(ctx: OperatorContext): void | Promise<void> {
    this.output = ctx.output;
    this.eventTimeOutput = ctx.eventTimeOutput;
  }
  abstract processElement(value: unknown): void;
  processWatermark(watermark: number): void {
    this.eventTimeOutput.emitWatermark(watermark);
  }
  processWatermarkStatus(idle: boolean): void {
    this.eventTimeOutput.emitWatermarkStatus(idle);
  }
  endInput(): void | Promise<void> {}
  ready(): Promise<void> | undefined {
    return undefined;
  }
  prepareSnapshot(_checkpointId: number, _type: CheckpointType): void | Promise<void> {}
  snapshotAsync(_checkpointId: number): Promise<ReadonlyMap<string, OperatorStateEntry>> | undefined {
    return undefined;
  }
  notifyCheckpointComplete(_checkpointId: number): void | Promise<void> {}
  notifyCheckpointAborted(_checkpointId: number): void | Promise<void> {}
  finish(): void | Promise<void> {}
  close(): void | Promise<void> {}
}
