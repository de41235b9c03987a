import type { SchemaChangeSession, SinkSchemaDialect, SinkTableRef, SqlRunner } from '../database-sink/sink-schema-dialect.ts';
import { SCHEMA_CHANGES_TABLE } from '../database-sink/sink-schema-dialect.ts';
import type { SinkColumn, SinkSchemaChange, SinkTableSchema } from '../database-sink/sink-table-schema.ts';
import { logicalFromPostgres, postgresTypeOf } from './postgres-logical-type.ts';
import { sqlState } from './pg-connection.ts';
import { quoteIdent, quoteTable } from './pg-quote.ts';

/** Schema changes in PostgreSQL's DDL. A column added later is nullable: the rows before it have no value for it. */
/**
 * SQLSTATEs about a statement itself: a syntax error (42601), an unknown type (42704), an invalid
 * table definition (42P16), a limit (54000 program limit exceeded, 54011 too many columns).
 */
const INVALID_STATEMENTS = new Set(['42601', '42704', '42P16', '54000', '54011']);

export const postgresSchemaDialect: SinkSchemaDialect = {
  name: 'postgres',
  invalidStatement: (e) => INVALID_STATEMENTS.has(sqlState(e) ?? ''),
  statements(ref: SinkTableRef, change: SinkSchemaChange): string[] {
    const t = quoteTable(ref.namespace, ref.table);
    switch (change.kind) {
      case 'create.table': {
        const cols = change.schema.columns.map((c) => `${quoteIdent(c.name)} ${postgresTypeOf(c.type)}${c.nullable ? '' : ' NOT NULL'}`);
        const key = change.schema.primaryKey.length > 0 ? [`PRIMARY KEY (${change.schema.primaryKey.map(quoteIdent).join(', ')})`] : [];
        return [`CREATE TABLE IF NOT EXISTS ${t} (${[...cols, ...key].join(', ')})`];
      }
      case 'drop.table':
        return [`DROP TABLE IF EXISTS ${t}`];
      case 'truncate.table':
        return [`TRUNCATE TABLE ${t}`];
      case 'add.column':
        return [`ALTER TABLE ${t} ADD COLUMN IF NOT EXISTS ${quoteIdent(change.column.name)} ${postgresTypeOf(change.column.type)}`];
      case 'drop.column':
        return [`ALTER TABLE ${t} DROP COLUMN IF EXISTS ${quoteIdent(change.column)}`];
      case 'rename.column':
        return [`ALTER TABLE ${t} RENAME COLUMN ${quoteIdent(change.from)} TO ${quoteIdent(change.to)}`];
      case 'alter.column.type': {
        const c = quoteIdent(change.column);
        const type = postgresTypeOf(change.type);
        return [`ALTER TABLE ${t} ALTER COLUMN ${c} TYPE ${type} USING ${c}::${type}, ALTER COLUMN ${c} ${change.nullable ? 'DROP' : 'SET'} NOT NULL`];
      }
    }
  },
};

/** A session on a PostgreSQL sink database; `sinkId` scopes the recorded changes (one pipeline's sink). */
export function postgresSchemaSession(sql: SqlRunner, sinkId: string, markerSchema = 'public'): SchemaChangeSession {
  const marker = quoteTable(markerSchema, SCHEMA_CHANGES_TABLE);
  let made: Promise<unknown> | undefined;
  const create = () =>
    sql.query(
      `CREATE TABLE IF NOT EXISTS ${marker} (sink_id text NOT NULL, change_id text NOT NULL, sink_table text NOT NULL, statements text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (sink_id, change_id))`,
    );
  // Two sessions creating it at once (a sink's subtasks): IF NOT EXISTS does not cover the race,
  // the loser fails on the catalog's unique index (23505), finds it made (42P07) or finds its row
  // type made ('type … already exists', 42710); once more finds it.
  const ensure = () => (made ??= create().catch((e: unknown) => (['23505', '42P07', '42710'].includes(String((e as { code?: unknown }).code)) ? create() : Promise.reject(e))));
  return {
    async readSchema(ref) {
      const rows = (await sql.query(
        `SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type, NOT a.attnotnull AS nullable,
                CASE WHEN a.attnum = ANY(i.indkey::int2[]) THEN array_position(i.indkey::int2[], a.attnum) - array_lower(i.indkey::int2[], 1) + 1 ELSE 0 END AS key_at
         FROM pg_attribute a LEFT JOIN pg_index i ON i.indrelid = a.attrelid AND i.indisprimary
         WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`,
        [quoteTable(ref.namespace, ref.table)],
      )) as Array<{ name: string; type: string; nullable: boolean; key_at: number }>;
      if (rows.length === 0) return undefined;
      const columns: SinkColumn[] = rows.map((r) => ({ name: r.name, type: logicalFromPostgres(r.type), nullable: r.nullable }));
      const primaryKey = rows.filter((r) => Number(r.key_at) > 0).sort((a, b) => Number(a.key_at) - Number(b.key_at)).map((r) => r.name);
      return { columns, primaryKey } satisfies SinkTableSchema;
    },
    async applied(changeId) {
      await ensure();
      return (await sql.query(`SELECT 1 FROM ${marker} WHERE sink_id = $1 AND change_id = $2`, [sinkId, changeId])).length > 0;
    },
    async apply(changeId, ref, statements) {
      await ensure();
      await sql.query('BEGIN');
      try {
        for (const s of statements) await sql.query(s);
        await sql.query(`INSERT INTO ${marker} (sink_id, change_id, sink_table, statements) VALUES ($1, $2, $3, $4)`, [sinkId, changeId, `${ref.namespace}.${ref.table}`, statements.join(';\n')]);
        await sql.query('COMMIT');
      } catch (e) {
        await sql.query('ROLLBACK').catch(() => {});
        throw e;
      }
    },
  };
}
