import type { MailboxProcessor } from './mailbox-processor.ts';
import type { SourceInput } from './source-input.ts';
import type { TaskActivityTracker } from './task-activity-tracker.ts';

export interface SourceTaskParts {
  /** The task is running (not initializing, ended or stopped). */
  readonly running: () => boolean;
  /** The task's source input; undefined for a task fed by the network. */
  readonly input: () => SourceInput | undefined;
  readonly flush: () => void;
  /** All input consumed: operators flush, downstream hears of it. */
  readonly endOfInput: () => void;
  readonly activity: TaskActivityTracker;
}

/**
 * What the JobMaster asks of a source task besides splits: watermark alignment, events from the
 * split enumerator, stop-with-savepoint and its undoing. Each is mail, so it lands between two
 * polls of the reader and in order with checkpoint triggers.
 */
export class SourceTaskMails {
  readonly #mailbox: MailboxProcessor;
  readonly #p: SourceTaskParts;

  constructor(mailbox: MailboxProcessor, parts: SourceTaskParts) {
    this.#mailbox = mailbox;
    this.#p = parts;
  }

  updateMaxAllowedWatermark(maxAllowed: number): void {
    this.#mailbox.mailbox.put({ description: 'watermark alignment', run: () => void (this.#p.running() && this.#p.input()?.updateMaxAllowedWatermark(maxAllowed)) });
  }

  handleSourceEvent(event: unknown): void {
    this.#mailbox.mailbox.put({ description: 'event from the split enumerator', run: () => void this.#p.input()?.handleSourceEvent(event) });
  }

  /** Stop with savepoint: the reader is polled no more (resume() undoes it); with drain, the input ends first. */
  stopForSavepoint(drain: boolean): void {
    this.#mailbox.mailbox.put({
      description: drain ? 'draining for stop-with-savepoint' : 'stopping for stop-with-savepoint',
      run: () => {
        if (this.#mailbox.isSuspended('source-stopped') || !this.#p.running()) return;
        this.#mailbox.suspend('source-stopped');
        this.#p.flush();
        if (drain) this.#p.endOfInput();
        else this.#p.activity.set({ kind: 'stopped-for-savepoint' });
      },
    });
  }

  /** A failed stop-with-savepoint: the reader is polled again. */
  resume(): void {
    this.#mailbox.mailbox.put({
      description: 'resuming after a failed stop-with-savepoint',
      run: () => {
        this.#mailbox.resume('source-stopped');
        this.#p.activity.set({ kind: 'reading' });
      },
    });
  }
}
