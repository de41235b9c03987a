import type { CdcColumn, CdcSchemaChange, CdcSchemaEvent, CdcTableSchema } from './schema-change.ts';

/** A change the tracker accepted: what changed and the table's schema after it. */
export interface TrackedChange {
  readonly changes: readonly CdcSchemaChange[];
  readonly schema: CdcTableSchema;
}

/**
 * Each captured table's columns and version, as of the log follower's position (it is in the log
 * split, so checkpoints keep it). Applying a change twice is harmless: a restore that replays a
 * transaction's RELATION message, or a MySQL DDL inside an open event group, finds nothing new.
 */
export class SchemaTracker {
  readonly #tables = new Map<string, CdcTableSchema>();
  /**
   * Whether every captured table's schema is known (restored, or described as the stream began):
   * then a table the log describes first is a new one (create.table), not one seen for the first time.
   */
  #complete: boolean;

  constructor(restored: readonly CdcTableSchema[] = []) {
    for (const s of restored) this.#tables.set(key(s.db, s.table), s);
    this.#complete = restored.length > 0;
  }

  /** The schemas as the stream began, for tables the checkpoint did not have. */
  /** A table no longer captured: its schema leaves the state. */
  forget(db: string, table: string): void {
    this.#tables.delete(key(db, table));
  }

  seed(schemas: readonly CdcTableSchema[]): void {
    for (const s of schemas) if (!this.#tables.has(key(s.db, s.table))) this.#tables.set(key(s.db, s.table), s);
    if (schemas.length > 0) this.#complete = true;
  }

  /**
   * The table's columns become `names` (a subset of those tracked, in row order), at its version:
   * a seed read after the position it stands for. False when a name is not tracked.
   */
  rebase(db: string, table: string, names: readonly string[]): boolean {
    const k = key(db, table);
    const prev = this.#tables.get(k);
    if (!prev) return false;
    const columns = names.map((n) => prev.columns.find((c) => c.name === n));
    if (columns.some((c) => c === undefined)) return false;
    this.#tables.set(k, { ...prev, columns: columns as CdcColumn[] });
    return true;
  }

  version(db: string, table: string): number {
    return this.#tables.get(key(db, table))?.version ?? 0;
  }

  get(db: string, table: string): CdcTableSchema | undefined {
    return this.#tables.get(key(db, table));
  }

  snapshot(): CdcTableSchema[] {
    return [...this.#tables.values()];
  }

  /** Applies a change; undefined when it changes nothing the tracker knows (a replay, an unchanged RELATION). */
  apply(ev: CdcSchemaEvent<unknown, unknown>): TrackedChange | undefined {
    const k = key(ev.db, ev.table);
    const prev = this.#tables.get(k);
    const { changes, columns } = ev.changes ? this.#applyChanges(prev, ev.changes, ev.columns) : this.#described(prev, ev.columns ?? []);
    if (changes.length === 0) {
      // A table's first RELATION is its baseline; it is no change.
      if (!prev) this.#tables.set(k, { db: ev.db, table: ev.table, version: 0, columns });
      return undefined;
    }
    // A truncate changes rows, not the schema: the version stays.
    const version = prev && changes.every((c) => c.kind === 'truncate.table') ? prev.version : (prev?.version ?? -1) + 1;
    const schema: CdcTableSchema = { db: ev.db, table: ev.table, version, columns };
    this.#tables.set(k, schema);
    return { changes, schema };
  }

  #described(prev: CdcTableSchema | undefined, columns: readonly CdcColumn[]): { changes: CdcSchemaChange[]; columns: readonly CdcColumn[] } {
    if (!prev) return { changes: this.#complete ? [{ kind: 'create.table' }] : [], columns };
    // A table dropped and made again under its name.
    if (prev.columns.length === 0) return { changes: [{ kind: 'create.table' }], columns };
    return { changes: diff(prev, columns), columns };
  }

  /** Applies parsed changes to the tracked columns, leaving out those already applied. */
  #applyChanges(prev: CdcTableSchema | undefined, changes: readonly CdcSchemaChange[], created: readonly CdcColumn[] | undefined): { changes: CdcSchemaChange[]; columns: CdcColumn[] } {
    let cols = [...(prev?.columns ?? [])];
    const applied: CdcSchemaChange[] = [];
    const has = (name: string) => cols.some((c) => c.name === name);
    for (const c of changes) {
      switch (c.kind) {
        case 'create.table':
          if (prev && sameColumns(prev.columns, created ?? [])) continue;
          cols = [...(created ?? [])];
          break;
        case 'drop.table':
          cols = [];
          break;
        case 'truncate.table':
          break;
        case 'add.column': {
          if (has(c.column.name)) continue;
          const at = c.after === undefined ? cols.length : c.after === null ? 0 : cols.findIndex((x) => x.name === c.after) + 1;
          cols.splice(at <= 0 && c.after ? cols.length : at, 0, c.column);
          break;
        }
        case 'drop.column':
          if (!has(c.column)) continue;
          cols = cols.filter((x) => x.name !== c.column);
          break;
        case 'rename.column':
          if (!has(c.from) || has(c.to)) continue;
          cols = cols.map((x) => (x.name === c.from ? { ...x, name: c.to } : x));
          break;
        case 'alter.column.type':
          if (!has(c.column) || cols.some((x) => x.name === c.column && x.type === c.type)) continue;
          cols = cols.map((x) => (x.name === c.column ? { ...x, type: c.type } : x));
          break;
      }
      applied.push(c);
    }
    return { changes: applied, columns: cols };
  }
}

/**
 * What turned the tracked columns into `next`: a column at the same place with the same type and
 * another name is renamed (as Debezium reads PostgreSQL's RELATION messages, which carry no
 * column ids), one with the same name and another type is retyped, the rest dropped or added.
 */
function diff(prev: CdcTableSchema | undefined, next: readonly CdcColumn[]): CdcSchemaChange[] {
  if (!prev) return [];
  const before = prev.columns;
  const out: CdcSchemaChange[] = [];
  const nextNames = new Set(next.map((c) => c.name));
  const beforeNames = new Set(before.map((c) => c.name));
  const renamed = new Set<string>();
  if (before.length === next.length) {
    before.forEach((b, i) => {
      const n = next[i]!;
      if (b.name !== n.name && b.type === n.type && !nextNames.has(b.name) && !beforeNames.has(n.name)) {
        out.push({ kind: 'rename.column', from: b.name, to: n.name });
        renamed.add(b.name).add(n.name);
      }
    });
  }
  for (const b of before) if (!renamed.has(b.name) && !nextNames.has(b.name)) out.push({ kind: 'drop.column', column: b.name });
  next.forEach((n, i) => {
    if (renamed.has(n.name)) return;
    const b = before.find((x) => x.name === n.name);
    if (!b) out.push({ kind: 'add.column', column: n, after: i === 0 ? null : next[i - 1]!.name });
    else if (b.type !== n.type) out.push({ kind: 'alter.column.type', column: n.name, type: n.type });
  });
  return out;
}

function sameColumns(a: readonly CdcColumn[], b: readonly CdcColumn[]): boolean {
  return a.length === b.length && a.every((c, i) => c.name === b[i]!.name && c.type === b[i]!.type);
}

function key(db: string, table: string): string {
  return `${db}.${table}`;
}
