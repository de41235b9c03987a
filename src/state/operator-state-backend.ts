import type { OperatorListState } from '../api/state.ts';

/** How operator list state is handed out again when the parallelism changes (Flink's rules). */
export type RedistributionMode = 'split' | 'union';

export interface OperatorStateEntry {
  readonly mode: RedistributionMode;
  values: unknown[];
}

/** Non-keyed state of one operator in one subtask: named lists (source splits, sink transactions). */
export class OperatorStateBackend {
  readonly states = new Map<string, OperatorStateEntry>();
  readonly #restored: ReadonlyMap<string, OperatorStateEntry>;
  /** True when the subtask was started from a checkpoint or savepoint (even if it got no entries). */
  readonly isRestored: boolean;

  constructor(restored?: ReadonlyMap<string, OperatorStateEntry>) {
    this.#restored = restored ?? new Map();
    this.isRestored = restored !== undefined;
  }

  getListState<T>(name: string): OperatorListState<T> {
    return this.#get<T>(name, 'split');
  }

  getUnionListState<T>(name: string): OperatorListState<T> {
    return this.#get<T>(name, 'union');
  }

  /** The values this subtask was given on restore (empty on a fresh start). */
  restoredValues<T>(name: string): readonly T[] {
    return (this.#restored.get(name)?.values ?? []) as T[];
  }

  #get<T>(name: string, mode: RedistributionMode): OperatorListState<T> {
    let entry = this.states.get(name);
    if (!entry) {
      entry = { mode, values: [...(this.#restored.get(name)?.values ?? [])] };
      this.states.set(name, entry);
    }
    const e = entry;
    return {
      get: () => e.values as T[],
      update: (values) => {
        e.values = [...values];
      },
      add: (value) => {
        e.values.push(value);
      },
      clear: () => {
        e.values = [];
      },
    };
  }

  /** Operator state is small (positions, file names): the snapshot copies it. */
  snapshot(): Map<string, OperatorStateEntry> {
    const out = new Map<string, OperatorStateEntry>();
    for (const [name, e] of this.states) out.set(name, { mode: e.mode, values: structuredClone(e.values) });
    return out;
  }
}
