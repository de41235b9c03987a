import type { TaskActivity } from '../network/task-activity.ts';

/** A unit of work for a task that must not interleave with record processing. */
export interface Mail {
  readonly description: string;
  /** What the task is doing while the mail's promise (if it returns one) runs. */
  readonly activity?: TaskActivity;
  readonly run: () => void | Promise<void>;
}

/** The task's mailbox: control actions (checkpoint triggers, notifications) run between records. */
export class Mailbox {
  readonly #mails: Mail[] = [];
  #onMail: () => void = () => {};

  set onMail(callback: () => void) {
    this.#onMail = callback;
  }

  put(mail: Mail): void {
    this.#mails.push(mail);
    this.#onMail();
  }

  take(): Mail | undefined {
    return this.#mails.shift();
  }

  get size(): number {
    return this.#mails.length;
  }
}
