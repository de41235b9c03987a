import mysql from 'mysql2/promise';
import type { MySqlConnectionOptions } from './mysql-connection-options.ts';
import { mysql2Runner, queryRecords, type QueryRunner } from './query-runner.ts';

/** One column as information_schema.COLUMNS describes it. */
export interface ColumnSchema {
  readonly name: string;
  /** DATA_TYPE, lower case: 'int', 'varchar', 'datetime', 'enum', ... */
  readonly dataType: string;
  /** COLUMN_TYPE: 'int(10) unsigned', "enum('a','b')", 'decimal(6,2)', ... */
  readonly columnType: string;
  readonly unsigned: boolean;
  readonly nullable: boolean;
  /** CHARACTER_SET_NAME; null for numbers, dates and binary strings. */
  readonly charset: string | null;
  /** COLLATION_NAME; how the server orders the column's strings (chunk keys need a binary one). */
  readonly collation: string | null;
  /** CHARACTER_OCTET_LENGTH: the byte length of CHAR/BINARY/VARCHAR/VARBINARY/TEXT/BLOB columns. */
  readonly octetLength: number | null;
  /** NUMERIC_PRECISION (DECIMAL digits, BIT bits, ...). */
  readonly precision: number | null;
  /** NUMERIC_SCALE: DECIMAL scale, and D of FLOAT(M,D)/DOUBLE(M,D). */
  readonly scale: number | null;
  /** DATETIME_PRECISION: fractional second digits of DATETIME/TIMESTAMP/TIME. */
  readonly fsp: number | null;
  /** ENUM/SET members in definition order (empty for other types). */
  readonly members: readonly string[];
}

export interface TableSchema {
  readonly db: string;
  readonly table: string;
  /** In ORDINAL_POSITION order, which is the order of a binlog row image. */
  readonly columns: readonly ColumnSchema[];
  readonly primaryKey: readonly string[];
}

/** A table that information_schema does not know (never created, or dropped since). */
export class TableSchemaError extends Error {
  readonly db: string;
  readonly table: string;
  constructor(db: string, table: string, problem: string) {
    super(`table ${db}.${table}: ${problem}`);
    this.name = 'TableSchemaError';
    this.db = db;
    this.table = table;
  }
}

/**
 * Column names and types per table, loaded from information_schema on first use and kept until
 * refreshed: MariaDB's TABLE_MAP events carry types but not names, and neither carries signedness,
 * charsets or ENUM members.
 */
export class TableSchemaCache {
  readonly #source: MySqlConnectionOptions | QueryRunner;
  #runner: Promise<{ runner: QueryRunner; close(): Promise<void> }> | undefined;
  readonly #tables = new Map<string, TableSchema>();
  readonly #loading = new Map<string, Promise<TableSchema>>();
  /** Collation id -> charset name, loaded with the first schema: TABLE_MAP metadata names collations by id. */
  #collations: Map<number, string> | undefined;

  /** Either connection options (the cache opens its own connection) or a connection to use. */
  constructor(source: MySqlConnectionOptions | QueryRunner) {
    this.#source = source;
  }

  /** The cached schema, without loading. */
  peek(db: string, table: string): TableSchema | undefined {
    return this.#tables.get(key(db, table));
  }

  get(db: string, table: string): Promise<TableSchema> {
    const cached = this.#tables.get(key(db, table));
    return cached ? Promise.resolve(cached) : this.#load(db, table);
  }

  /** Reloads the table's schema (after DDL, or when a row event does not fit the cached one). */
  refresh(db: string, table: string): Promise<TableSchema> {
    this.#tables.delete(key(db, table));
    return this.#load(db, table);
  }

  /** Forgets one table, every table of a database, or (no arguments) everything. */
  invalidate(db?: string, table?: string): void {
    if (db === undefined) return this.#tables.clear();
    if (table !== undefined) return void this.#tables.delete(key(db, table));
    for (const [k, t] of this.#tables) if (t.db === db) this.#tables.delete(k);
  }

  async close(): Promise<void> {
    const r = this.#runner;
    this.#runner = undefined;
    if (r) await (await r.catch(() => undefined))?.close();
  }

  #load(db: string, table: string): Promise<TableSchema> {
    const k = key(db, table);
    let p = this.#loading.get(k);
    if (!p) {
      p = this.#query(db, table).finally(() => this.#loading.delete(k));
      this.#loading.set(k, p);
    }
    return p;
  }

  /** The charset of a collation id (known once any schema was loaded). */
  collationCharset(id: number): string | undefined {
    return this.#collations?.get(id);
  }

  async #query(db: string, table: string): Promise<TableSchema> {
    const { runner } = await this.#connection();
    if (!this.#collations) {
      const rows = await queryRecords(runner, 'SELECT ID AS id, CHARACTER_SET_NAME AS charset FROM information_schema.COLLATIONS WHERE ID IS NOT NULL');
      this.#collations = new Map(rows.map((r) => [Number(num(r.id)), text(r.charset)!]));
    }
    const cols = await queryRecords(runner, COLUMNS_SQL, [db, table]);
    if (cols.length === 0) throw new TableSchemaError(db, table, 'not found in information_schema.COLUMNS');
    const pk = await queryRecords(runner, PRIMARY_KEY_SQL, [db, table]);
    const schema: TableSchema = { db, table, columns: cols.map(toColumn), primaryKey: pk.map((r) => text(r.name)!) };
    this.#tables.set(key(db, table), schema);
    return schema;
  }

  #connection(): Promise<{ runner: QueryRunner; close(): Promise<void> }> {
    const source = this.#source;
    if ('query' in source) return Promise.resolve({ runner: source, close: async () => {} });
    this.#runner ??= (async () => {
      const conn = await mysql.createConnection({ host: source.host, port: source.port, user: source.user, password: source.password });
      conn.on('error', () => {}); // a dropped idle connection fails the next query instead
      return { runner: mysql2Runner(conn), close: () => conn.end().catch(() => conn.destroy()) };
    })();
    const p = this.#runner;
    p.catch(() => {
      if (this.#runner === p) this.#runner = undefined;
    });
    return p;
  }
}

const COLUMNS_SQL = `SELECT COLUMN_NAME AS name, DATA_TYPE AS dataType, COLUMN_TYPE AS columnType, IS_NULLABLE AS nullable,
  CHARACTER_SET_NAME AS charset, COLLATION_NAME AS collation, CHARACTER_OCTET_LENGTH AS octetLength, NUMERIC_PRECISION AS \`precision\`,
  NUMERIC_SCALE AS scale, DATETIME_PRECISION AS fsp
  FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION`;

const PRIMARY_KEY_SQL = `SELECT COLUMN_NAME AS name FROM information_schema.KEY_COLUMN_USAGE
  WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND CONSTRAINT_NAME = 'PRIMARY' ORDER BY ORDINAL_POSITION`;

function key(db: string, table: string): string {
  return `${db}\u0000${table}`;
}

function toColumn(r: Record<string, unknown>): ColumnSchema {
  const dataType = text(r.dataType)!.toLowerCase();
  const columnType = text(r.columnType)!;
  return {
    name: text(r.name)!,
    dataType,
    columnType,
    unsigned: /\bunsigned\b/i.test(columnType),
    nullable: text(r.nullable) === 'YES',
    charset: text(r.charset),
    collation: text(r.collation),
    octetLength: num(r.octetLength),
    precision: num(r.precision),
    scale: num(r.scale),
    fsp: num(r.fsp),
    members: dataType === 'enum' || dataType === 'set' ? parseMembers(columnType) : [],
  };
}

// The connection may use any typeCast (the CDC source's turns BIGINT into bigint, binary into Buffer).
function text(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  return Buffer.isBuffer(v) ? v.toString('utf8') : String(v);
}

function num(v: unknown): number | null {
  return v === null || v === undefined ? null : Number(typeof v === 'object' ? text(v) : v);
}

/** The quoted members of `enum('a','it''s','back\\slash')` (quotes doubled, backslashes escaped). */
export function parseMembers(columnType: string): string[] {
  const open = columnType.indexOf('(');
  const members: string[] = [];
  let i = open + 1;
  while (i < columnType.length && columnType[i] === "'") {
    let s = '';
    i++;
    for (;;) {
      const c = columnType[i++];
      if (c === undefined) throw new Error(`unterminated member in ${columnType}`);
      if (c === "'" && columnType[i] === "'") {
        s += "'";
        i++;
      } else if (c === "'") break;
      else if (c === '\\') s += unescape(columnType[i++] ?? '');
      else s += c;
    }
    members.push(s);
    if (columnType[i] === ',') i++;
  }
  return members;
}

function unescape(c: string): string {
  return { '0': '\0', n: '\n', r: '\r', t: '\t', Z: '\x1a', b: '\b' }[c] ?? c;
}
