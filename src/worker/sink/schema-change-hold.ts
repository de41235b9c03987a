import type { SchemaChangeClassifier } from '../../api/two-phase-committing-sink.ts';

/**
 * Holds a sink table's records behind a schema change until the transaction holding the rows
 * before the change has committed: a prepared transaction keeps locks that an ALTER TABLE waits
 * for, so a change applied at once would wait for a commit that needs the next barrier, which
 * waits behind the sink (FLINK-36690). Per sink table: the change and every record of its table
 * after it wait; other tables go on. At the next checkpoint's cut the hold learns which
 * checkpoint it waits for; when that checkpoint completes (its transaction commits), the change
 * and the records up to the next change are released, and a next change starts a new hold.
 * Held records are in the checkpoint (snapshot/restore), so none is lost or doubled.
 */

/** A committing sink's figure `schema_changes_held:<table>` = how many schema changes the table holds now. */
export const HELD_FIGURE = 'schema_changes_held';

/** One table's hold as a checkpoint keeps it. `waitFor`: the checkpoint whose completion releases it (none before a cut). */
export interface HeldTable<T> {
  readonly table: string;
  readonly waitFor?: number;
  readonly records: readonly T[];
}

class Holding<T> {
  constructor(
    readonly records: T[],
    public waitFor: number | undefined,
  ) {}

  /** Released by the completion of `checkpointId`: the change and what follows up to the next change, and the hold that remains. */
  release(checkpointId: number, classify: SchemaChangeClassifier<T>): { released: T[]; rest: Holding<T> | undefined } | undefined {
    if (this.waitFor === undefined || this.waitFor > checkpointId) return undefined;
    return this.releaseNow(classify);
  }

  /** The change and what follows up to the next change, whatever it waits for, and the hold that remains. */
  releaseNow(classify: SchemaChangeClassifier<T>): { released: T[]; rest: Holding<T> | undefined } {
    const next = this.records.findIndex((r, i) => i > 0 && classify.holdsBack(r));
    if (next < 0) return { released: this.records, rest: undefined };
    return { released: this.records.slice(0, next), rest: new Holding(this.records.slice(next), undefined) };
  }
}

export class SchemaChangeHold<T> {
  readonly #classify: SchemaChangeClassifier<T>;
  /** Tables holding, in the order their holds began (released in that order). */
  readonly #tables = new Map<string, Holding<T>>();

  constructor(classify: SchemaChangeClassifier<T>) {
    this.#classify = classify;
  }

  /** True: write the record now. False: it is held. */
  offer(record: T): boolean {
    const table = this.#classify.tableOf(record);
    const hold = this.#tables.get(table);
    if (hold) {
      hold.records.push(record);
      return false;
    }
    if (!this.#classify.holdsBack(record)) return true;
    this.#tables.set(table, new Holding([record], undefined));
    return false;
  }

  /** A checkpoint's cut: holds that began before it wait for its completion. */
  cut(checkpointId: number): void {
    for (const hold of this.#tables.values()) hold.waitFor ??= checkpointId;
  }

  /** A checkpoint completed: the records to write now, in order per table. */
  complete(checkpointId: number): T[] {
    const out: T[] = [];
    for (const [table, hold] of [...this.#tables]) {
      const r = hold.release(checkpointId, this.#classify);
      if (!r) continue;
      out.push(...r.released);
      if (r.rest) this.#tables.set(table, r.rest);
      else this.#tables.delete(table);
    }
    return out;
  }

  /**
   * The input has ended and every transaction before the holds is committed: each table's change
   * and its records up to the next change, to write now (a next change waits for another call).
   */
  releaseNext(): T[] {
    const out: T[] = [];
    for (const [table, hold] of [...this.#tables]) {
      const r = hold.releaseNow(this.#classify);
      out.push(...r.released);
      if (r.rest) this.#tables.set(table, r.rest);
      else this.#tables.delete(table);
    }
    return out;
  }

  get holding(): number {
    return this.#tables.size;
  }

  /** Per table holding, the schema changes it holds (`schema_changes_held:<table>`): the operator's figures. */
  figures(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [table, hold] of this.#tables) out[`${HELD_FIGURE}:${table}`] = hold.records.filter((r) => this.#classify.holdsBack(r)).length;
    return out;
  }

  snapshot(): HeldTable<T>[] {
    return [...this.#tables].map(([table, h]) => (h.waitFor === undefined ? { table, records: [...h.records] } : { table, waitFor: h.waitFor, records: [...h.records] }));
  }

  /**
   * Holds of a restored checkpoint wait for the first checkpoint after the restore: by its
   * completion the restored checkpoint's transactions are committed (commits run in order).
   */
  restore(held: readonly HeldTable<T>[]): void {
    this.#tables.clear();
    for (const h of held) this.#tables.set(h.table, new Holding([...h.records], undefined));
  }
}
