/** What is counted per table. */
export type TableFigure = 'r' | 'c' | 'u' | 'd' | 'ddl';

/** One table's counts: rows snapshotted, inserts, updates, deletes, schema changes. */
export interface TableCounts {
  snapshotRows: number;
  inserts: number;
  updates: number;
  deletes: number;
  schemaChanges: number;
}

const FIELD: Record<TableFigure, keyof TableCounts> = { r: 'snapshotRows', c: 'inserts', u: 'updates', d: 'deletes', ddl: 'schemaChanges' };

/**
 * A reader's per-table figures, as metrics named `cdc_table_<figure>{table="db.table"}` are
 * flattened to: `cdc_table_inserts.db.table`, summed over the readers by the metrics view.
 */
export class TableFigures {
  readonly #tables = new Map<string, TableCounts>();

  count(db: string, table: string, what: TableFigure, n = 1): void {
    this.countOf(`${db}.${table}`, what, n);
  }

  /** As count, by the table's `db.table` name (made once per log event, not per row). */
  countOf(name: string, what: TableFigure, n = 1): void {
    let c = this.#tables.get(name);
    if (!c) this.#tables.set(name, (c = { snapshotRows: 0, inserts: 0, updates: 0, deletes: 0, schemaChanges: 0 }));
    c[FIELD[what]] += n;
  }

  get(name: string): Readonly<TableCounts> | undefined {
    return this.#tables.get(name);
  }

  /** Flat metrics: `cdc_table_<field>:<db.table>`. */
  metrics(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [name, c] of this.#tables) for (const [field, v] of Object.entries(c)) out[`cdc_table_${snake(field)}:${name}`] = v;
    return out;
  }
}

function snake(s: string): string {
  return s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}
