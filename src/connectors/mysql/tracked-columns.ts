import type { CdcColumn } from '../cdc/schema-change.ts';

/**
 * The CDC core's tracked columns as the binlog decoder asks for them: set once the log follower
 * exists, which is after the binlog client (and its decoder) started reading.
 */
export class TrackedColumns {
  #lookup: ((db: string, table: string) => readonly CdcColumn[] | undefined) | undefined;

  use(lookup: (db: string, table: string) => readonly CdcColumn[] | undefined): void {
    this.#lookup = lookup;
  }

  /** The tracked column names of a table, in row order; undefined when none are tracked. */
  namesOf(db: string, table: string): readonly string[] | undefined {
    return this.#lookup?.(db, table)?.map((c) => c.name);
  }
}
