import type { StreamEvent } from '../network/stream-event.ts';
import type { MailboxProcessor } from './mailbox-processor.ts';
import type { RecordWriter } from './record-writer.ts';
import type { TaskActivityTracker } from './task-activity-tracker.ts';

/**
 * A task's record writers, as the task sees them: a full channel suspends the task's input
 * (backpressure, timed by the activity tracker) until every channel can take more, and partial
 * buffers leave when the task goes idle, becomes blocked, or every buffer timeout while it is busy.
 */
export class TaskOutputs {
  readonly #writers: RecordWriter[];
  readonly #mailbox: MailboxProcessor;
  readonly #activity: TaskActivityTracker;
  readonly #timeoutMs: number;
  #lastFlush = 0;

  constructor(writers: RecordWriter[], mailbox: MailboxProcessor, activity: TaskActivityTracker, bufferTimeoutMs: number) {
    this.#writers = writers;
    this.#timeoutMs = bufferTimeoutMs;
    this.#mailbox = mailbox;
    this.#activity = activity;
    for (const w of writers) for (const ch of w.channels) ch.onWritable = () => this.#onWritable();
  }

  get recordsOut(): number {
    return this.#writers.reduce((n, w) => n + w.recordsOut, 0);
  }

  get bytesOut(): number {
    let n = 0;
    for (const w of this.#writers) for (const ch of w.channels) n += ch.bytesOut;
    return n;
  }

  /** Flink's outPoolUsage: the share of the output buffers in use, over all edges. */
  get usage(): number {
    let u = 0;
    for (const w of this.#writers) u += w.usage;
    return this.#writers.length === 0 ? 0 : u / this.#writers.length;
  }

  /** Whether every output can take more; a full one suspends the input. */
  writable(): boolean {
    if (this.#mailbox.isSuspended('backpressure')) return false;
    for (let i = 0; i < this.#writers.length; i++) {
      if (this.#writers[i]!.writable) continue;
      this.#activity.backpressureStarted();
      this.#mailbox.suspend('backpressure');
      // Downstream must not wait on partial buffers held here.
      this.flush();
      return false;
    }
    return true;
  }

  #onWritable(): void {
    if (!this.#mailbox.isSuspended('backpressure') || !this.#writers.every((w) => w.writable)) return;
    this.#activity.backpressureEnded();
    this.#mailbox.resume('backpressure');
  }

  broadcastEvent(event: StreamEvent): void {
    for (const w of this.#writers) w.broadcastEvent(event);
  }

  flush(): void {
    for (const w of this.#writers) w.flushAll();
    this.#lastFlush = performance.now();
  }

  maybeTimedFlush(): void {
    if (performance.now() - this.#lastFlush >= this.#timeoutMs) this.flush();
  }
}
