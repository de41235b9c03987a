import { formatLsn, type Lsn } from './lsn.ts';
import type { PgChangeRecord, PgChangeSource, RowImage } from './pg-change-record.ts';
import type { PgTypeCatalog } from './pg-type-catalog.ts';
import { UNCHANGED_TOAST, type PgOutputMessage, type RelationMessage, type TupleValue } from './pgoutput-message.ts';

/** What the assembler makes of the stream's messages. */
export type AssembledEvent =
  /** `commitLsn`: the transaction's commit LSN, record.source.lsn as a number. */
  | { readonly kind: 'change'; readonly record: PgChangeRecord; readonly commitLsn: Lsn }
  | { readonly kind: 'truncate'; readonly tables: readonly string[]; readonly lsn: Lsn; readonly index: number; readonly sources: readonly PgChangeSource[]; readonly ts: number }
  /** A transaction begins: every transaction committed before `finalLsn` has come. */
  | { readonly kind: 'begin'; readonly finalLsn: Lsn }
  | { readonly kind: 'commit'; readonly commitLsn: Lsn; readonly endLsn: Lsn }
  /**
   * A relation the stream has just described, with its column types (load them into the catalog);
   * `source` where in the stream (inside a transaction: before the relation's next row).
   */
  | { readonly kind: 'relation'; readonly relation: RelationMessage; readonly source?: PgChangeSource; readonly lsn?: Lsn }

/** A message referred to a relation the stream had not described, or came outside a transaction. */
export class PgStreamStateError extends Error {
  constructor(problem: string) {
    super(`pgoutput stream: ${problem}`);
    this.name = 'PgStreamStateError';
  }
}

interface OpenTransaction {
  readonly finalLsn: Lsn;
  readonly xid: number;
  readonly commitTime: number;
  index: number;
}

/**
 * Turns pgoutput messages into change records: keeps the relations the stream describes, tracks
 * the open transaction, and parses tuples with the catalog's parsers. The catalog must hold a
 * relation's column types before its first row is assembled (see the 'relation' event).
 */
export class PgChangeAssembler {
  readonly #db: string;
  readonly #catalog: PgTypeCatalog;
  readonly #warn: (message: string) => void;
  readonly #relations = new Map<number, RelationMessage>();
  readonly #warned = new Set<string>();
  #tx: OpenTransaction | undefined;

  constructor(db: string, catalog: PgTypeCatalog, warn: (message: string) => void) {
    this.#db = db;
    this.#catalog = catalog;
    this.#warn = warn;
  }

  get inTransaction(): boolean {
    return this.#tx !== undefined;
  }

  relation(id: number): RelationMessage | undefined {
    return this.#relations.get(id);
  }

  accept(walStart: Lsn, m: PgOutputMessage): AssembledEvent | null {
    switch (m.tag) {
      case 'begin':
        this.#tx = { finalLsn: m.finalLsn, xid: m.xid, commitTime: m.commitTime, index: 0 };
        return { kind: 'begin', finalLsn: m.finalLsn };
      case 'commit':
        this.#tx = undefined;
        return { kind: 'commit', commitLsn: m.commitLsn, endLsn: m.endLsn };
      case 'relation':
        this.#relations.set(m.relationId, m);
        return this.#tx ? { kind: 'relation', relation: m, source: this.#source(m, walStart, this.#tx, this.#tx.index), lsn: this.#tx.finalLsn } : { kind: 'relation', relation: m };
      case 'insert': {
        const rel = this.#rel(m.relationId);
        const after = this.#image(rel, m.newTuple);
        return this.#change(rel, walStart, 'c', null, after.row, after.unchanged);
      }
      case 'update': {
        const rel = this.#rel(m.relationId);
        const after = this.#image(rel, m.newTuple);
        if (m.oldKind !== 'O') this.#warnNoBefore(rel);
        const before = m.oldTuple ? this.#image(rel, m.oldTuple, m.oldKind === 'K').row : null;
        // A full old tuple (REPLICA IDENTITY FULL) is logged detoasted: it has the values the new one leaves out.
        const unchanged = m.oldKind === 'O' && before ? after.unchanged.filter((c) => !(c in before)) : after.unchanged;
        for (const c of after.unchanged) if (!unchanged.includes(c)) after.row[c] = before![c];
        return this.#change(rel, walStart, 'u', before, after.row, unchanged);
      }
      case 'delete': {
        const rel = this.#rel(m.relationId);
        return this.#change(rel, walStart, 'd', this.#image(rel, m.oldTuple, m.oldKind === 'K').row, null, []);
      }
      case 'truncate': {
        const tx = this.#open('truncate');
        const rels = m.relationIds.map((id) => this.#rel(id));
        const index = tx.index++;
        return { kind: 'truncate', tables: rels.map(name), lsn: tx.finalLsn, index, sources: rels.map((r) => this.#source(r, walStart, tx, index)), ts: tx.commitTime };
      }
      case 'origin':
      case 'type':
      case 'message':
        // Type: the catalog is asked by OID instead; origins and messages carry no rows.
        return null;
    }
  }

  #change(rel: RelationMessage, walStart: Lsn, op: 'c' | 'u' | 'd', before: RowImage | null, after: RowImage | null, unchanged: string[]): AssembledEvent {
    const tx = this.#open(op);
    const record: PgChangeRecord = {
      op,
      before,
      after,
      table: name(rel),
      ...(unchanged.length > 0 ? { unchangedColumns: unchanged } : {}),
      source: this.#source(rel, walStart, tx, tx.index++),
    };
    return { kind: 'change', record, commitLsn: tx.finalLsn };
  }

  #source(rel: RelationMessage, walStart: Lsn, tx: OpenTransaction, index: number): PgChangeSource {
    return { db: this.#db, schema: rel.schema, table: rel.table, lsn: formatLsn(tx.finalLsn), changeLsn: formatLsn(walStart), index, txId: tx.xid, ts: tx.commitTime, snapshot: false };
  }

  /** A tuple as a row; an old key tuple ('K') carries only the key columns, the others are null on the wire. */
  #image(rel: RelationMessage, tuple: readonly TupleValue[], keyOnly = false): { row: RowImage; unchanged: string[] } {
    const row: RowImage = {};
    const unchanged: string[] = [];
    for (let i = 0; i < rel.columns.length; i++) {
      const c = rel.columns[i]!;
      if (keyOnly && !c.key) continue;
      const v = tuple[i];
      if (v === UNCHANGED_TOAST) unchanged.push(c.name);
      else row[c.name] = v === null || v === undefined ? null : this.#catalog.parser(c.typeOid)(v);
    }
    return { row, unchanged };
  }

  #warnNoBefore(rel: RelationMessage): void {
    if (rel.replicaIdentity === 'f') return;
    const table = name(rel);
    if (this.#warned.has(table)) return;
    this.#warned.add(table);
    const identity = { d: 'DEFAULT', n: 'NOTHING', i: 'USING INDEX', f: 'FULL' }[rel.replicaIdentity];
    this.#warn(
      `table ${table} has REPLICA IDENTITY ${identity}: its updates carry no before image (before is null, or only the key when the key changed) ` +
        `and its deletes only the key. For full before images run ALTER TABLE ${table} REPLICA IDENTITY FULL`,
    );
  }

  #rel(id: number): RelationMessage {
    const rel = this.#relations.get(id);
    if (!rel) throw new PgStreamStateError(`a row of relation ${id} came before its Relation message`);
    return rel;
  }

  #open(what: string): OpenTransaction {
    if (!this.#tx) throw new PgStreamStateError(`a ${what} came outside a transaction`);
    return this.#tx;
  }
}

function name(rel: RelationMessage): string {
  return `${rel.schema}.${rel.table}`;
}
