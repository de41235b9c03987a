import type { Clock, Timer } from '../clock/clock.ts';

/**
 * Waits for every TaskManager to report that the subtasks of a failed attempt have stopped
 * (Flink's TaskCancelerWatchDog, seen from the JobMaster): the next attempt is deployed only
 * then, and TaskManagers that have not reported within the timeout are given up on (and replaced).
 */
export class CancellationWatch {
  readonly attempt: number;
  readonly done: Promise<void>;
  readonly #waiting: Set<number>;
  #resolve!: () => void;
  #timer: Timer | undefined;

  constructor(attempt: number, taskManagers: Iterable<number>, timeoutMs: number, clock: Clock, onTimeout: (stragglers: number[]) => void) {
    this.attempt = attempt;
    this.#waiting = new Set(taskManagers);
    this.done = new Promise((resolve) => (this.#resolve = resolve));
    if (timeoutMs > 0) {
      this.#timer = clock.schedule(() => {
        if (this.#waiting.size === 0) return;
        const stragglers = [...this.#waiting];
        this.#waiting.clear();
        onTimeout(stragglers);
        this.#resolve();
      }, timeoutMs);
    }
    this.#check();
  }

  /** The TaskManager's subtasks have stopped (or it is lost and will be replaced anyway). */
  answered(taskManager: number): void {
    this.#waiting.delete(taskManager);
    this.#check();
  }

  #check(): void {
    if (this.#waiting.size > 0) return;
    this.#timer?.cancel();
    this.#resolve();
  }
}
