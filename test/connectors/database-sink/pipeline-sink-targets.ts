// The two targets of the pipeline database sinks' tests, on private servers: PostgreSQL and
// MariaDB, each with its sink, a checking connection and the catalog as the sinks read it.
import { after, before, describe } from 'node:test';
import pg from 'pg';
import mysql from 'mysql2/promise';
import type { TwoPhaseCommittingSink } from '../../../src/api/two-phase-committing-sink.ts';
import type { PipelineDatabaseSinkOptions } from '../../../src/connectors/database-sink/pipeline-database-sink-options.ts';
import type { RoutedChange } from '../../../src/connectors/database-sink/routed-change.ts';
import type { SinkTableRef, SqlRunner } from '../../../src/connectors/database-sink/sink-schema-dialect.ts';
import type { SinkTableSchema } from '../../../src/connectors/database-sink/sink-table-schema.ts';
import { mysqlPipelineSink } from '../../../src/connectors/mysql/mysql-pipeline-sink.ts';
import { mySqlSchemaSession } from '../../../src/connectors/mysql/mysql-schema-ddl.ts';
import { mysql2Runner } from '../../../src/connectors/mysql/query-runner.ts';
import { postgresPipelineSink } from '../../../src/connectors/postgres/postgres-pipeline-sink.ts';
import { postgresSchemaSession } from '../../../src/connectors/postgres/postgres-schema-ddl.ts';
import { startMariaDb, type MariaDbServer } from '../../fixtures/mariadb-server.ts';
import { startPostgres, type PostgresServer } from '../../fixtures/postgres-server.ts';

export type SinkSettings = Omit<PipelineDatabaseSinkOptions<unknown>, 'connection'>;

export interface PipelineTarget {
  readonly name: 'postgres' | 'mariadb';
  /** Where the sink tables go: PostgreSQL's schema, MariaDB's database. */
  readonly namespace: string;
  readonly sql: SqlRunner;
  sink(settings: SinkSettings): TwoPhaseCommittingSink<RoutedChange, unknown>;
  readSchema(table: string): Promise<SinkTableSchema | undefined>;
  /** Rows of a table as `id:value,...` lines, sorted by id. */
  rows(table: string, columns: readonly string[]): Promise<string[]>;
  /** Gids / xids of prepared transactions left on the server. */
  prepared(): Promise<string[]>;
  /** The ids recorded in weir_schema_changes for a sink table, in order, repeats kept. */
  recordedChanges(table: string): Promise<string[]>;
  /** Runs a statement on a connection of its own with a short lock timeout; the error, if any. */
  alterWithLockTimeout(statement: string): Promise<unknown>;
}

export async function startPipelineTargets(): Promise<{ targets: PipelineTarget[]; stop(): Promise<void> }> {
  const [pgServer, maria]: [PostgresServer, MariaDbServer] = await Promise.all([startPostgres(), startMariaDb()]);
  const pgClient = new pg.Client(pgServer.connectionOptions());
  await pgClient.connect();
  const my = await mysql.createConnection(maria.connectionOptions());
  await my.query('CREATE DATABASE sinkdb');
  const pgSql: SqlRunner = { query: async (s, p) => (await pgClient.query(s, p as unknown[])).rows };
  const mySql = mysql2Runner(my);
  const value = (v: unknown) => (v === null || v === undefined ? 'null' : v instanceof Date ? v.toISOString() : String(v));
  const rowsOf = async (sql: SqlRunner, from: string, columns: readonly string[], quote: (n: string) => string) => {
    const rows = (await sql.query(`SELECT ${columns.map(quote).join(', ')} FROM ${from} ORDER BY ${quote(columns[0]!)}`)) as Array<Record<string, unknown>>;
    return rows.map((r) => columns.map((c) => value(r[c])).join(','));
  };
  const pgRef = (table: string): SinkTableRef => ({ namespace: 'public', table });
  const myRef = (table: string): SinkTableRef => ({ namespace: 'sinkdb', table });
  const targets: PipelineTarget[] = [
    {
      name: 'postgres',
      namespace: 'public',
      sql: pgSql,
      sink: (s) => postgresPipelineSink({ ...s, connection: pgServer.connectionOptions() }) as TwoPhaseCommittingSink<RoutedChange, unknown>,
      readSchema: (table) => postgresSchemaSession(pgSql, 'reader').readSchema(pgRef(table)),
      rows: (table, columns) => rowsOf(pgSql, `public."${table.replace(/"/g, '""')}"`, columns, (n) => `"${n}"`),
      prepared: async () => ((await pgSql.query('SELECT gid FROM pg_prepared_xacts')) as Array<{ gid: string }>).map((r) => r.gid),
      recordedChanges: async (table) => ((await pgSql.query("SELECT change_id FROM public.weir_schema_changes WHERE sink_table = $1 ORDER BY applied_at, change_id", [`public.${table}`])) as Array<{ change_id: string }>).map((r) => r.change_id),
      alterWithLockTimeout: async (statement) => {
        const c = new pg.Client(pgServer.connectionOptions());
        await c.connect();
        try {
          await c.query("SET lock_timeout = '300ms'");
          await c.query(statement);
          return undefined;
        } catch (e) {
          return e;
        } finally {
          await c.end();
        }
      },
    },
    {
      name: 'mariadb',
      namespace: 'sinkdb',
      sql: mySql,
      sink: (s) => mysqlPipelineSink({ ...s, connection: { ...maria.connectionOptions(), database: 'sinkdb' } }) as TwoPhaseCommittingSink<RoutedChange, unknown>,
      readSchema: (table) => mySqlSchemaSession(mySql, 'reader', 'sinkdb').readSchema(myRef(table)),
      rows: (table, columns) => rowsOf(mySql, `sinkdb.\`${table}\``, columns, (n) => `\`${n}\``),
      prepared: async () => ((await mySql.query('XA RECOVER')) as Array<{ data: unknown }>).map((r) => String(r.data)),
      recordedChanges: async (table) => ((await mySql.query('SELECT change_id FROM sinkdb.weir_schema_changes WHERE sink_table = ? ORDER BY applied_at, change_id', [`sinkdb.${table}`])) as Array<{ change_id: string }>).map((r) => r.change_id),
      alterWithLockTimeout: async (statement) => {
        const c = await mysql.createConnection(maria.connectionOptions());
        try {
          await c.query('SET SESSION lock_wait_timeout = 1, innodb_lock_wait_timeout = 1');
          await c.query(statement);
          return undefined;
        } catch (e) {
          return e;
        } finally {
          await c.end();
        }
      },
    },
  ];
  return {
    targets,
    async stop() {
      await pgClient.end().catch(() => {});
      await my.end().catch(() => {});
      await Promise.all([pgServer.stop(), maria.stop()]);
    },
  };
}

/**
 * A describe block whose tests run on both targets, started once for the block: `body` is called
 * per target name with a getter of that target (started by the time a test runs).
 */
export function describeOnTargets(title: string, body: (name: 'postgres' | 'mariadb', target: () => PipelineTarget) => void): void {
  describe(title, () => {
    let env: Awaited<ReturnType<typeof startPipelineTargets>>;
    before(async () => {
      env = await startPipelineTargets();
    });
    after(async () => {
      await env?.stop();
    });
    for (const name of ['postgres', 'mariadb'] as const) body(name, () => env.targets.find((x) => x.name === name)!);
  });
}
