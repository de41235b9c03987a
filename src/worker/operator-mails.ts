import type { MailboxProcessor } from './mailbox-processor.ts';

/** Runs an operator's work as mail of its task (Flink's MailboxExecutor): between records, never inside a snapshot. */
export interface MailboxExecutor {
  execute(description: string, run: () => void): void;
}

/** Lets an operator hold its task's input back while it cannot take more (an async operator at capacity). */
export interface InputThrottle {
  suspend(): void;
  resume(): void;
}

/**
 * The mail and input control a task gives its operators. Mail put before the task runs waits
 * until it does: output restored from an unaligned checkpoint goes first, and operators still
 * opening receive nothing. The input stays suspended while any operator holds it back.
 */
export class OperatorMails {
  readonly #mailbox: MailboxProcessor;
  readonly #early: Array<{ description: string; run: () => void }> = [];
  readonly #holding = new Set<number>();
  #started = false;

  constructor(mailbox: MailboxProcessor) {
    this.#mailbox = mailbox;
  }

  readonly executor: MailboxExecutor = {
    execute: (description, run) => {
      if (this.#started) this.#mailbox.mailbox.put({ description, run });
      else this.#early.push({ description, run });
    },
  };

  /** The task runs: mail put so far goes into the mailbox, in order. */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    for (const mail of this.#early.splice(0)) this.#mailbox.mailbox.put(mail);
  }

  /** The throttle of the chain's operator number `member`. */
  throttle(member: number): InputThrottle {
    return {
      suspend: () => {
        this.#holding.add(member);
        this.#mailbox.suspend('operator-backlog');
      },
      resume: () => {
        this.#holding.delete(member);
        if (this.#holding.size === 0) this.#mailbox.resume('operator-backlog');
      },
    };
  }
}
