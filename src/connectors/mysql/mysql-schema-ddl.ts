import type { SchemaChangeSession, SinkSchemaDialect, SinkTableRef, SqlRunner } from '../database-sink/sink-schema-dialect.ts';
import { SCHEMA_CHANGES_TABLE } from '../database-sink/sink-schema-dialect.ts';
import type { SinkColumn, SinkSchemaChange, SinkTableSchema } from '../database-sink/sink-table-schema.ts';
import { keyCharsOf, logicalFromMySql, mySqlTypeOf } from './mysql-logical-type.ts';
import { mysqlErrno } from './mysql-sink-connection.ts';
import { quoteName } from './sql-client.ts';

/**
 * Errors about a statement itself: a parse error (1064), a key too long (1071), a column too long
 * (1074), a row too large (1118), too many columns (1117), a TEXT or BLOB in a key (1170), a bad
 * default (1067), a wrong column specifier (1063).
 */
const INVALID_STATEMENTS = new Set([1063, 1064, 1067, 1071, 1074, 1117, 1118, 1170]);

const table = (ref: SinkTableRef) => `${quoteName(ref.namespace)}.${quoteName(ref.table)}`;

/**
 * Schema changes in MySQL/MariaDB DDL (RENAME COLUMN needs MySQL 8 or MariaDB 10.5). A column
 * added later is nullable: the rows before it have no value for it. MODIFY restates a column
 * whole, so its nullability is always written.
 */
export const mySqlSchemaDialect: SinkSchemaDialect = {
  name: 'mysql',
  invalidStatement: (e) => INVALID_STATEMENTS.has(mysqlErrno(e) ?? 0),
  statements(ref: SinkTableRef, change: SinkSchemaChange): string[] {
    const t = table(ref);
    switch (change.kind) {
      case 'create.table': {
        const keys = new Set(change.schema.primaryKey);
        const keyChars = keyCharsOf(change.schema.columns.filter((c) => keys.has(c.name)).map((c) => c.type));
        const cols = change.schema.columns.map((c) => `${quoteName(c.name)} ${mySqlTypeOf(c.type, keys.has(c.name) ? keyChars : undefined)}${c.nullable && !keys.has(c.name) ? ' NULL' : ' NOT NULL'}`);
        const key = keys.size > 0 ? [`PRIMARY KEY (${change.schema.primaryKey.map(quoteName).join(', ')})`] : [];
        return [`CREATE TABLE IF NOT EXISTS ${t} (${[...cols, ...key].join(', ')}) DEFAULT CHARSET = utf8mb4`];
      }
      case 'drop.table':
        return [`DROP TABLE IF EXISTS ${t}`];
      case 'truncate.table':
        return [`TRUNCATE TABLE ${t}`];
      case 'add.column': {
        const where = change.after === null ? ' FIRST' : change.after ? ` AFTER ${quoteName(change.after)}` : '';
        return [`ALTER TABLE ${t} ADD COLUMN ${quoteName(change.column.name)} ${mySqlTypeOf(change.column.type)} NULL${where}`];
      }
      case 'drop.column':
        return [`ALTER TABLE ${t} DROP COLUMN ${quoteName(change.column)}`];
      case 'rename.column':
        return [`ALTER TABLE ${t} RENAME COLUMN ${quoteName(change.from)} TO ${quoteName(change.to)}`];
      case 'alter.column.type':
        return [`ALTER TABLE ${t} MODIFY COLUMN ${quoteName(change.column)} ${mySqlTypeOf(change.type)} ${change.nullable ? 'NULL' : 'NOT NULL'}`];
    }
  },
};

/**
 * A session on a MySQL/MariaDB sink; the record of applied changes lives in `markerDatabase`.
 * DDL commits by itself, so a change is run and then recorded: a crash between the two leaves a
 * change unrecorded, which the next attempt plans against the table again and finds done.
 */
export function mySqlSchemaSession(sql: SqlRunner, sinkId: string, markerDatabase: string): SchemaChangeSession {
  const marker = `${quoteName(markerDatabase)}.${quoteName(SCHEMA_CHANGES_TABLE)}`;
  let made: Promise<unknown> | undefined;
  const ensure = () =>
    (made ??= sql.query(
      `CREATE TABLE IF NOT EXISTS ${marker} (sink_id varchar(255) NOT NULL, change_id varchar(255) NOT NULL, sink_table varchar(512) NOT NULL, statements longtext NOT NULL, applied_at timestamp(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3), PRIMARY KEY (sink_id, change_id)) DEFAULT CHARSET = utf8mb4`,
    ));
  return {
    async readSchema(ref) {
      const rows = (await sql.query(
        `SELECT c.COLUMN_NAME AS name, c.COLUMN_TYPE AS type, c.IS_NULLABLE AS nullable, k.ORDINAL_POSITION AS key_at
         FROM information_schema.COLUMNS c LEFT JOIN information_schema.KEY_COLUMN_USAGE k
           ON k.TABLE_SCHEMA = c.TABLE_SCHEMA AND k.TABLE_NAME = c.TABLE_NAME AND k.COLUMN_NAME = c.COLUMN_NAME AND k.CONSTRAINT_NAME = 'PRIMARY'
         WHERE c.TABLE_SCHEMA = ? AND c.TABLE_NAME = ? ORDER BY c.ORDINAL_POSITION`,
        [ref.namespace, ref.table],
      )) as Array<{ name: string; type: string; nullable: string; key_at: number | null }>;
      if (rows.length === 0) return undefined;
      const columns: SinkColumn[] = rows.map((r) => ({ name: r.name, type: logicalFromMySql(String(r.type)), nullable: r.nullable === 'YES' }));
      const primaryKey = rows.filter((r) => r.key_at !== null).sort((a, b) => Number(a.key_at) - Number(b.key_at)).map((r) => r.name);
      return { columns, primaryKey } satisfies SinkTableSchema;
    },
    async applied(changeId) {
      await ensure();
      return (await sql.query(`SELECT 1 FROM ${marker} WHERE sink_id = ? AND change_id = ?`, [sinkId, changeId])).length > 0;
    },
    async apply(changeId, ref, statements) {
      await ensure();
      for (const s of statements) await sql.query(s);
      await sql.query(`INSERT INTO ${marker} (sink_id, change_id, sink_table, statements) VALUES (?, ?, ?, ?)`, [sinkId, changeId, `${ref.namespace}.${ref.table}`, statements.join(';\n')]);
    },
  };
}
