/** Committables of one checkpoint and subtask, as kept in operator state until they are committed. */
export interface PendingCommit<C = unknown> {
  readonly checkpointId: number;
  /** The subtask that wrote them (absent in state written before it was recorded). */
  readonly subtask?: number;
  readonly committables: readonly C[];
}

interface Entry<C> {
  readonly committables: Promise<readonly C[]>;
  settled: readonly C[] | undefined;
  committing: boolean;
}

/**
 * A subtask's committables by checkpoint (Flink's sink2 CommittableCollector): a checkpoint's
 * arrive when its pre-commit settles (in the checkpoint's asynchronous part); they are committed
 * once a checkpoint at or after theirs completes, and they stay in every checkpoint's state until
 * then, so a restore from any of those commits them again.
 */
export class CommittableCollector<C> {
  readonly #subtask: number;
  readonly #byCheckpoint = new Map<number, Entry<C>>();

  constructor(subtask: number) {
    this.#subtask = subtask;
  }

  /** A checkpoint's pre-commit; the promise returned settles with it (a rejection is the caller's to handle). */
  add(checkpointId: number, committables: readonly C[] | Promise<readonly C[]>): Promise<readonly C[]> {
    const promise = Promise.resolve(committables);
    const entry: Entry<C> = { committables: promise, settled: Array.isArray(committables) ? (committables as readonly C[]) : undefined, committing: false };
    promise.then((c) => (entry.settled = c), () => {});
    this.#byCheckpoint.set(checkpointId, entry);
    return promise;
  }

  /** The state of checkpoint `checkpointId`: every uncommitted pre-commit up to it, once settled. */
  async stateUpTo(checkpointId: number): Promise<Array<PendingCommit<C>>> {
    const ids = [...this.#byCheckpoint.keys()].filter((id) => id <= checkpointId).sort((a, b) => a - b);
    const out: Array<PendingCommit<C>> = [];
    for (const id of ids) {
      const entry = this.#byCheckpoint.get(id);
      const committables = entry ? await entry.committables : [];
      if (committables.length > 0) out.push({ checkpointId: id, subtask: this.#subtask, committables });
    }
    return out;
  }

  /** What a completed checkpoint makes due: settled pre-commits up to it that no commit has taken yet, oldest first. */
  takeDue(checkpointId: number): Array<PendingCommit<C>> {
    const due: Array<PendingCommit<C>> = [];
    for (const [id, entry] of [...this.#byCheckpoint].sort(([a], [b]) => a - b)) {
      if (id > checkpointId || entry.committing || entry.settled === undefined) continue;
      if (entry.settled.length === 0) {
        this.#byCheckpoint.delete(id);
        continue;
      }
      entry.committing = true;
      due.push({ checkpointId: id, subtask: this.#subtask, committables: entry.settled });
    }
    return due;
  }

  committed(checkpointId: number): void {
    this.#byCheckpoint.delete(checkpointId);
  }

  /** Checkpoints whose committables are not committed yet. */
  get pendingCheckpoints(): number[] {
    return [...this.#byCheckpoint.keys()].sort((a, b) => a - b);
  }
}
