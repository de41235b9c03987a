/** Committables of one checkpoint and subtask, as kept in operator state until they are committed. */
export interface PendingCommit<C = unknown> {
  readonly checkpointId: number;
  /** The subtask that wrote them (absent in state written before it was recorded). */
  readonly subtask?: number;
  readonly committables: readonly C[];
  /** Records the target refused in this pre-commit's work, not yet emitted to the dead-letter output when the checkpoint was cut. */
  readonly deadLetters?: readonly unknown[];
}

interface Entry<C> {
  readonly committables: Promise<readonly C[]>;
  settled: readonly C[] | undefined;
  committing: boolean;
  /** The dead letters of the pre-commit, once it settled. */
  deadLetters: readonly unknown[];
  lettersEmitted: boolean;
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

  /**
   * A checkpoint's pre-commit; the promise returned settles with it (a rejection is the caller's
   * to handle). `deadLetters` is asked once it has settled.
   */
  add(checkpointId: number, committables: readonly C[] | Promise<readonly C[]>, deadLetters?: () => readonly unknown[]): Promise<readonly C[]> {
    const settledNow = Array.isArray(committables) ? (committables as readonly C[]) : undefined;
    const entry: Entry<C> = { committables: Promise.resolve(committables), settled: undefined, committing: false, deadLetters: [], lettersEmitted: false };
    const settle = (c: readonly C[]) => {
      entry.deadLetters = deadLetters?.() ?? [];
      entry.settled = c;
      return c;
    };
    const promise = settledNow ? Promise.resolve(settle(settledNow)) : entry.committables.then(settle);
    (entry as { committables: Promise<readonly C[]> }).committables = promise;
    promise.catch(() => {});
    this.#byCheckpoint.set(checkpointId, entry);
    return promise;
  }

  /** Dead letters kept in a restored checkpoint: emitted with the next completed checkpoint, or at the end of input. */
  addRestoredDeadLetters(checkpointId: number, deadLetters: readonly unknown[]): void {
    if (deadLetters.length === 0) return;
    const existing = this.#byCheckpoint.get(checkpointId);
    if (existing) {
      existing.deadLetters = [...existing.deadLetters, ...deadLetters];
      return;
    }
    this.#byCheckpoint.set(checkpointId, { committables: Promise.resolve([]), settled: [], committing: false, deadLetters, lettersEmitted: false });
  }

  /** At a checkpoint's cut: the pre-commits whose dead letters are not emitted yet (those of unsettled ones cannot have been). */
  unemittedAtCut(): ReadonlySet<number> {
    return new Set([...this.#byCheckpoint].filter(([, e]) => !e.lettersEmitted).map(([id]) => id));
  }

  /**
   * The state of checkpoint `checkpointId`: every uncommitted pre-commit up to it, once settled,
   * with the dead letters of those in `unemitted` (what was not emitted at the cut belongs to the
   * checkpoint: a restore from it emits them).
   */
  async stateUpTo(checkpointId: number, unemitted: ReadonlySet<number> = new Set()): Promise<Array<PendingCommit<C>>> {
    const ids = [...this.#byCheckpoint.keys()].filter((id) => id <= checkpointId).sort((a, b) => a - b);
    const out: Array<PendingCommit<C>> = [];
    for (const id of ids) {
      const entry = this.#byCheckpoint.get(id);
      const committables = entry ? await entry.committables : [];
      const deadLetters = entry && unemitted.has(id) ? entry.deadLetters : [];
      if (committables.length > 0 || deadLetters.length > 0) {
        out.push({ checkpointId: id, subtask: this.#subtask, committables, ...(deadLetters.length > 0 ? { deadLetters } : {}) });
      }
    }
    return out;
  }

  /** Dead letters of settled pre-commits up to `checkpointId` not emitted yet, oldest first; they count as emitted from now on. */
  takeDeadLetters(checkpointId: number): unknown[] {
    const out: unknown[] = [];
    for (const [id, entry] of [...this.#byCheckpoint].sort(([a], [b]) => a - b)) {
      if (id > checkpointId || entry.lettersEmitted || entry.settled === undefined) continue;
      entry.lettersEmitted = true;
      out.push(...entry.deadLetters);
    }
    return out;
  }

  /** What a completed checkpoint makes due: settled pre-commits up to it that no commit has taken yet, oldest first. */
  takeDue(checkpointId: number): Array<PendingCommit<C>> {
    const due: Array<PendingCommit<C>> = [];
    for (const [id, entry] of [...this.#byCheckpoint].sort(([a], [b]) => a - b)) {
      if (id > checkpointId || entry.committing || entry.settled === undefined) continue;
      if (entry.settled.length === 0) {
        if (entry.lettersEmitted || entry.deadLetters.length === 0) this.#byCheckpoint.delete(id);
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
