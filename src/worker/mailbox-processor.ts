import type { TaskActivity } from '../network/task-activity.ts';
import { Mailbox } from './mailbox.ts';
import type { TaskActivityTracker } from './task-activity-tracker.ts';

/**
 * Why a task takes no input now while its mails still run (Flink's suspended default action):
 * its source has nothing (until the reader says it has), it is stopped for a savepoint, its
 * input has ended, its outputs are full (backpressure), its source runs ahead of the others
 * of its watermark alignment group, or an operator of its chain has as much waiting as it may
 * (an async operator at capacity), or its sink's writer has as much in flight as it may.
 */
export type Suspension = 'source-idle' | 'source-stopped' | 'input-ended' | 'backpressure' | 'watermark-alignment' | 'operator-backlog' | 'sink-not-ready';

const BIT: Record<Suspension, number> = { 'source-idle': 1, 'source-stopped': 2, 'input-ended': 4, backpressure: 8, 'watermark-alignment': 16, 'operator-backlog': 32, 'sink-not-ready': 64 };

/**
 * A task's mailbox loop (Flink's MailboxProcessor): mails (checkpoint triggers, notifications)
 * run between input steps; input, the default action, runs only while nothing suspends it. Work
 * that must finish before anything else happens (the synchronous part of a snapshot, a mail that
 * returns a promise) runs exclusively: no mail and no input until it settles.
 */
export class MailboxProcessor {
  readonly mailbox = new Mailbox();
  readonly #activity: TaskActivityTracker;
  readonly #wake: () => void;
  readonly #fail: (error: unknown) => void;
  #suspended = 0;
  #exclusive: Promise<unknown> | undefined;

  constructor(activity: TaskActivityTracker, wake: () => void, fail: (error: unknown) => void) {
    this.#activity = activity;
    this.#wake = wake;
    this.#fail = fail;
    this.mailbox.onMail = wake;
  }

  suspend(reason: Suspension): void {
    this.#suspended |= BIT[reason];
  }

  resume(reason: Suspension): void {
    if ((this.#suspended & BIT[reason]) === 0) return;
    this.#suspended &= ~BIT[reason];
    this.#wake();
  }

  isSuspended(reason: Suspension): boolean {
    return (this.#suspended & BIT[reason]) !== 0;
  }

  /** Whether input may be taken now. */
  get inputAvailable(): boolean {
    return this.#suspended === 0 && this.#exclusive === undefined;
  }

  /** Whether exclusive work is running (nothing else may). */
  get blocked(): boolean {
    return this.#exclusive !== undefined;
  }

  /** Runs `work` exclusively, showing `activity` meanwhile; a failure fails the task. */
  runExclusively(work: Promise<unknown>, activity: TaskActivity): void {
    const previous = this.#activity.current;
    this.#activity.set(activity);
    const shown = this.#activity.current;
    const done = work.then(
      () => {
        if (this.#exclusive === done) this.#exclusive = undefined;
        this.#activity.restoreIfStill(shown, previous);
        this.#wake();
      },
      (e: unknown) => {
        if (this.#exclusive === done) this.#exclusive = undefined;
        this.#fail(e);
      },
    );
    this.#exclusive = done;
  }

  /**
   * Takes no input until `work` settles, showing `activity` meanwhile, while mails go on running;
   * a failure fails the task. Why not exclusively: a sink that is not ready may be waiting for
   * what only a mail does. A database sink's statements of checkpoint N wait for row locks that
   * checkpoint N-1's prepared transaction holds until its commit, and that commit is the mail
   * notifying N-1's completion.
   */
  suspendUntil(work: Promise<unknown>, reason: Suspension, activity: TaskActivity): void {
    if (this.isSuspended(reason)) return;
    this.suspend(reason);
    const previous = this.#activity.current;
    this.#activity.set(activity);
    const shown = this.#activity.current;
    work.then(
      () => {
        this.#activity.restoreIfStill(shown, previous);
        this.resume(reason);
      },
      (e: unknown) => this.#fail(e),
    );
  }

  /**
   * Runs the queued mails, in order. A mail that returns a promise runs exclusively and stops
   * the round; so does `stop()` turning true (the task ended). Returns whether the task may go on.
   */
  runMails(stop: () => boolean): boolean {
    if (this.#exclusive) return false;
    for (let mail = this.mailbox.take(); mail !== undefined; mail = this.mailbox.take()) {
      const r = mail.run();
      if (r instanceof Promise) {
        this.runExclusively(r, mail.activity ?? { kind: 'mail', description: mail.description });
        return false;
      }
      if (stop()) return false;
    }
    return true;
  }
}
