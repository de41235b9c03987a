import sqlParser from 'node-sql-parser';
import type { CdcColumn, CdcSchemaChange } from '../cdc/schema-change.ts';

/** What a DDL statement does to one table. */
export interface ParsedTableChange {
  readonly db: string;
  readonly table: string;
  readonly changes: readonly CdcSchemaChange[];
  /** create.table: the new table's columns. */
  readonly columns?: readonly CdcColumn[];
  readonly primaryKeyDropped?: boolean;
}

/**
 * A statement parsed: the table changes it makes (possibly none: CREATE INDEX, GRANT...), or
 * 'unrecognized' (the parser failed, or an ALTER TABLE action it cannot map to columns).
 */
export type ParsedDdl = { readonly kind: 'tables'; readonly tables: readonly ParsedTableChange[] } | { readonly kind: 'unrecognized'; readonly reason: string };

/* eslint-disable @typescript-eslint/no-explicit-any -- node-sql-parser's AST is typed loosely */
type Node = any;

const parser = new sqlParser.Parser();
/** Statements that change no table's columns and need no parse. */
const NOT_TABLE_DDL = /^\s*(CREATE|DROP|ALTER)\s+(DATABASE|SCHEMA|USER|ROLE|VIEW|EVENT|FUNCTION|PROCEDURE|TRIGGER|SERVER|SEQUENCE|(UNIQUE\s+|FULLTEXT\s+|SPATIAL\s+)?INDEX)\b|^\s*(GRANT|REVOKE|FLUSH|ANALYZE|OPTIMIZE|SET|SAVEPOINT|RELEASE|XA)\b|^\s*(CREATE|ALTER)\s+(DEFINER|OR\s+REPLACE\s+(VIEW|FUNCTION|PROCEDURE))/i;

/**
 * Parses a binlog QUERY event's statement (MySQL/MariaDB dialect of node-sql-parser) into the
 * column changes of the tables it names, qualified with `defaultDb` (the session's database) when
 * it does not name one. Only the binlog's TABLE_MAP decides how rows decode; this is what the
 * stream reports about them.
 */
export function parseDdl(statement: string, defaultDb: string): ParsedDdl {
  if (NOT_TABLE_DDL.test(statement)) return { kind: 'tables', tables: [] };
  let ast: Node;
  try {
    ast = astify(statement);
  } catch (e) {
    return { kind: 'unrecognized', reason: `parse error: ${(e as Error).message.split('\n')[0]}` };
  }
  const tables: ParsedTableChange[] = [];
  for (const stmt of Array.isArray(ast) ? ast : [ast]) {
    const one = statementChanges(stmt, defaultDb);
    if (typeof one === 'string') return { kind: 'unrecognized', reason: one };
    tables.push(...one);
  }
  return { kind: 'tables', tables };
}

/**
 * The parser's MariaDB grammar first; its MySQL grammar when that fails: the MariaDB one refuses
 * some column names MariaDB itself takes unquoted (a `status VARCHAR(10)` column in a CREATE TABLE);
 * the two dialects' table DDL is the same for what is read here.
 */
function astify(statement: string): Node {
  try {
    return parser.astify(statement, { database: 'MariaDB' });
  } catch (e) {
    try {
      return parser.astify(statement, { database: 'MySQL' });
    } catch {
      throw e;
    }
  }
}

function statementChanges(s: Node, defaultDb: string): ParsedTableChange[] | string {
  const at = (t: Node) => ({ db: (t.db as string | null) || defaultDb, table: t.table as string });
  switch (s.type) {
    case 'create':
      if (s.keyword !== 'table') return [];
      if (s.like || s.query_expr || s.as) return `CREATE TABLE ... ${s.like ? 'LIKE' : 'AS SELECT'} does not list its columns`;
      return s.table.map((t: Node) => ({ ...at(t), changes: [{ kind: 'create.table' }], columns: columnsOf(s.create_definitions ?? []) }));
    case 'drop':
      if (s.keyword !== 'table') return [];
      return s.name.map((t: Node) => ({ ...at(t), changes: [{ kind: 'drop.table' }] }));
    case 'truncate':
      return s.name.map((t: Node) => ({ ...at(t), changes: [{ kind: 'truncate.table' }] }));
    case 'rename':
      return `RENAME TABLE is not followed as a schema change`;
    case 'alter':
      return alterChanges(s, at(s.table[0]));
    default:
      return [];
  }
}

function alterChanges(s: Node, target: { db: string; table: string }): ParsedTableChange[] | string {
  const changes: CdcSchemaChange[] = [];
  let primaryKeyDropped = false;
  for (const e of s.expr ?? []) {
    const resource = e.resource as string | undefined;
    const action = e.action as string;
    if (resource === 'column') {
      const c = column(e);
      if (action === 'add') changes.push(addColumn(e, c));
      else if (action === 'drop') changes.push({ kind: 'drop.column', column: c.name });
      else if (action === 'rename') changes.push({ kind: 'rename.column', from: e.old_column.column, to: c.name });
      else if (action === 'modify') changes.push({ kind: 'alter.column.type', column: c.name, type: c.type });
      else if (action === 'change') {
        const from = e.old_column.column as string;
        if (from !== c.name) changes.push({ kind: 'rename.column', from, to: c.name });
        changes.push({ kind: 'alter.column.type', column: c.name, type: c.type });
      } else return `ALTER TABLE action ${action} COLUMN`;
    } else if (resource === 'key' && action === 'drop' && /primary/i.test(String(e.keyword))) {
      primaryKeyDropped = true;
    } else if (resource === 'table' && action === 'rename') {
      return `ALTER TABLE ... RENAME TO is not followed as a schema change`;
    }
    // Indexes, constraints, table options, ALGORITHM/LOCK: no column changes.
  }
  if (changes.length === 0 && !primaryKeyDropped) return [];
  return [{ ...target, changes, ...(primaryKeyDropped ? { primaryKeyDropped } : {}) }];
}

function addColumn(e: Node, c: CdcColumn): CdcSchemaChange {
  const first = e.first_after?.keyword ?? e.suffix?.keyword;
  if (typeof first === 'string' && /first/i.test(first)) return { kind: 'add.column', column: c, after: null };
  const after = e.first_after?.column?.column ?? e.suffix?.expr?.column;
  return typeof after === 'string' ? { kind: 'add.column', column: c, after } : { kind: 'add.column', column: c };
}

function columnsOf(defs: Node[]): CdcColumn[] {
  return defs.filter((d) => d.resource === 'column').map(column);
}

function column(d: Node): CdcColumn {
  const name = typeof d.column === 'string' ? d.column : (d.column?.column as string);
  return { name: typeof name === 'string' ? name : String(name?.expr?.value ?? name), type: typeText(d.definition) };
}

/** 'varchar(20)', 'decimal(10,2)', 'bigint unsigned': lower case, as the statement spelled it. */
export function typeText(def: Node): string {
  if (!def) return 'unknown';
  const args = def.length !== undefined ? `(${def.length}${def.scale !== undefined ? `,${def.scale}` : ''})` : def.expr?.value ? `(${(def.expr.value as Node[]).map((v) => `'${v.value}'`).join(',')})` : '';
  const suffix = Array.isArray(def.suffix) && def.suffix.length > 0 ? ` ${def.suffix.join(' ')}` : '';
  return `${String(def.dataType).toLowerCase()}${args}${suffix.toLowerCase()}`;
}
