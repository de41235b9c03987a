import type { TaskFigures } from '../rpc/job-master-gateway.ts';
import type { TaskStateSnapshot } from '../checkpoint/state-handles.ts';
import type { TaskKey } from '../ids/task-key.ts';
import type { CheckpointOptions } from '../network/stream-event.ts';
import type { Timer } from '../clock/clock.ts';
import type { CheckpointStats } from './checkpoint-stats.ts';

export type AckResult = 'SUCCESS' | 'DUPLICATE' | 'UNKNOWN' | 'DISCARDED';

/** A checkpoint in flight: which subtasks have acknowledged, with their state and figures. */
export class PendingCheckpoint {
  readonly id: number;
  readonly timestamp: number;
  readonly options: CheckpointOptions;
  readonly stats: CheckpointStats;
  readonly acks = new Map<TaskKey, { state: TaskStateSnapshot; figures: TaskFigures }>();
  readonly #waiting: Set<TaskKey>;
  #discarded = false;
  timer: Timer | undefined;
  /** The split enumerators' states at the trigger, by source uid. */
  coordinators: Record<string, unknown> = {};
  readonly done: Promise<void>;
  resolve!: () => void;
  reject!: (e: Error) => void;

  constructor(id: number, timestamp: number, options: CheckpointOptions, expected: Iterable<TaskKey>, stats: CheckpointStats) {
    this.id = id;
    this.timestamp = timestamp;
    this.options = options;
    this.stats = stats;
    this.#waiting = new Set(expected);
    this.done = new Promise<void>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    this.done.catch(() => {});
  }

  acknowledge(task: TaskKey, state: TaskStateSnapshot, figures: TaskFigures): AckResult {
    if (this.#discarded) return 'DISCARDED';
    if (this.acks.has(task)) return 'DUPLICATE';
    if (!this.#waiting.delete(task)) return 'UNKNOWN';
    this.acks.set(task, { state, figures });
    return 'SUCCESS';
  }

  get isFullyAcknowledged(): boolean {
    return this.#waiting.size === 0;
  }

  get notYetAcknowledged(): readonly TaskKey[] {
    return [...this.#waiting];
  }

  discard(): void {
    this.#discarded = true;
    this.timer?.cancel();
  }

  get isDiscarded(): boolean {
    return this.#discarded;
  }
}
