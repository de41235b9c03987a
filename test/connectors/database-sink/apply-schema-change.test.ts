// Schema changes applied to a private PostgreSQL and a private MariaDB: each kind under evolve as
// the catalog shows it afterwards, once per change id (a replay after a failover changes
// nothing, also when MySQL's record of it was lost), try_evolve tolerating what the target
// refuses, evolve failing the attempt, and the type mapping from the other dialect's types.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import mysql from 'mysql2/promise';
import { applySchemaChangeOnce } from '../../../src/connectors/database-sink/apply-schema-change.ts';
import type { SchemaChangeSession, SinkSchemaDialect, SinkTableRef, SqlRunner } from '../../../src/connectors/database-sink/sink-schema-dialect.ts';
import { evolveSchema, type SinkSchemaChange, type SinkTableSchema } from '../../../src/connectors/database-sink/sink-table-schema.ts';
import { SinkError } from '../../../src/api/sink-error.ts';
import { postgresSchemaDialect, postgresSchemaSession } from '../../../src/connectors/postgres/postgres-schema-ddl.ts';
import { logicalFromPostgres } from '../../../src/connectors/postgres/postgres-logical-type.ts';
import { mySqlSchemaDialect, mySqlSchemaSession } from '../../../src/connectors/mysql/mysql-schema-ddl.ts';
import { logicalFromMySql } from '../../../src/connectors/mysql/mysql-logical-type.ts';
import { mysql2Runner } from '../../../src/connectors/mysql/query-runner.ts';
import { startPostgres, type PostgresServer } from '../../fixtures/postgres-server.ts';
import { startMariaDb, type MariaDbServer } from '../../fixtures/mariadb-server.ts';

interface Target {
  readonly name: string;
  readonly namespace: string;
  readonly dialect: SinkSchemaDialect;
  readonly sql: SqlRunner;
  session(sinkId: string): SchemaChangeSession;
  close(): Promise<void>;
}

const orders: SinkTableSchema = {
  columns: [
    { name: 'id', type: { kind: 'BIGINT' }, nullable: false },
    { name: 'name', type: { kind: 'VARCHAR', length: 40 }, nullable: false },
    { name: 'amount', type: { kind: 'DECIMAL', precision: 12, scale: 2 }, nullable: true },
    { name: 'at', type: { kind: 'TIMESTAMP', precision: 3 }, nullable: true },
  ],
  primaryKey: ['id'],
};

const CHANGES: readonly SinkSchemaChange[] = [
  { kind: 'create.table', schema: orders },
  { kind: 'add.column', column: { name: 'qty', type: { kind: 'INT' }, nullable: true } },
  { kind: 'rename.column', from: 'name', to: 'title' },
  { kind: 'alter.column.type', column: 'qty', type: { kind: 'BIGINT' }, nullable: true },
  { kind: 'drop.column', column: 'at' },
  { kind: 'truncate.table' },
  { kind: 'drop.table' },
];

async function startTargets(): Promise<{ targets: Target[]; stop(): Promise<void> }> {
  const [pgServer, maria]: [PostgresServer, MariaDbServer] = await Promise.all([startPostgres(), startMariaDb()]);
  const pgClient = new pg.Client(pgServer.connectionOptions());
  await pgClient.connect();
  const my = await mysql.createConnection({ ...maria.connectionOptions(), multipleStatements: false });
  await my.query('CREATE DATABASE sinkdb');
  const pgSql: SqlRunner = { query: async (s, p) => (await pgClient.query(s, p as unknown[])).rows };
  const mySql = mysql2Runner(my);
  const targets: Target[] = [
    { name: 'postgres', namespace: 'public', dialect: postgresSchemaDialect, sql: pgSql, session: (id) => postgresSchemaSession(pgSql, id), close: () => pgClient.end() },
    { name: 'mariadb', namespace: 'sinkdb', dialect: mySqlSchemaDialect, sql: mySql, session: (id) => mySqlSchemaSession(mySql, id, 'sinkdb'), close: () => my.end() },
  ];
  return {
    targets,
    async stop() {
      for (const t of targets) await t.close().catch(() => {});
      await Promise.all([pgServer.stop(), maria.stop()]);
    },
  };
}

const ctx = (t: Target, table: string, behavior: 'evolve' | 'try_evolve' | 'lenient') => ({ target: t.name, table, behavior });
const names = (s: SinkTableSchema | undefined) => s?.columns.map((c) => `${c.name}${c.nullable ? '?' : ''}`);

describe('applySchemaChangeOnce on PostgreSQL and MariaDB', () => {
  let env: Awaited<ReturnType<typeof startTargets>>;
  before(async () => {
    env = await startTargets();
  });
  after(async () => {
    await env?.stop();
  });

  test('every kind under evolve: the catalog equals the model after each, and the same ids again change nothing', async () => {
    for (const t of env.targets) {
      const ref: SinkTableRef = { namespace: t.namespace, table: 'orders' };
      const session = t.session('pipe-a');
      let model: SinkTableSchema | undefined;
      let i = 0;
      for (const change of CHANGES) {
        if (change.kind === 'truncate.table') await t.sql.query(`INSERT INTO ${t.namespace}.orders (id, title) VALUES (1, 'x')`);
        const r = await applySchemaChangeOnce(session, t.dialect, ref, change, `src.orders@${++i}`, ctx(t, 'orders', 'evolve'));
        assert.equal(r.replayed, false, `${t.name} ${change.kind}`);
        assert.ok(r.statements.length > 0, `${t.name} ${change.kind}: statements run`);
        model = evolveSchema(model, change);
        assert.deepEqual(names(await session.readSchema(ref)), names(model), `${t.name} after ${change.kind}`);
        if (change.kind === 'truncate.table') assert.equal((await t.sql.query(`SELECT * FROM ${t.namespace}.orders`)).length, 0);
        if (change.kind === 'alter.column.type') assert.deepEqual((await session.readSchema(ref))!.columns.find((c) => c.name === 'qty')!.type, { kind: 'BIGINT' });
      }
      // A failover brings the whole sequence again: recorded ids are skipped, and the table stays dropped.
      i = 0;
      for (const change of CHANGES) {
        const r = await applySchemaChangeOnce(session, t.dialect, ref, change, `src.orders@${++i}`, ctx(t, 'orders', 'evolve'));
        assert.equal(r.replayed, true, `${t.name} replayed ${change.kind}`);
      }
      assert.equal(await session.readSchema(ref), undefined);
    }
  });

  test('a change run but not recorded (a crash between DDL and record) is found done, recorded, and not run again', async () => {
    for (const t of env.targets) {
      const ref: SinkTableRef = { namespace: t.namespace, table: 'lost' };
      const session = t.session('pipe-b');
      await applySchemaChangeOnce(session, t.dialect, ref, { kind: 'create.table', schema: orders }, 'lost@0', ctx(t, 'lost', 'evolve'));
      const add: SinkSchemaChange = { kind: 'add.column', column: { name: 'qty', type: { kind: 'INT' }, nullable: true } };
      for (const s of t.dialect.statements(ref, add)) await t.sql.query(s);
      const r = await applySchemaChangeOnce(session, t.dialect, ref, add, 'lost@1', ctx(t, 'lost', 'evolve'));
      assert.deepEqual([r.replayed, r.statements, r.skipped], [false, [], 'the table already has it'], t.name);
      assert.equal(await session.applied('lost@1'), true);
    }
  });

  test('try_evolve records what the target refuses and goes on; evolve fails the attempt (restartable) naming table and statement', async () => {
    for (const t of env.targets) {
      const ref: SinkTableRef = { namespace: t.namespace, table: 'words' };
      const session = t.session('pipe-c');
      await applySchemaChangeOnce(session, t.dialect, ref, { kind: 'create.table', schema: orders }, 'words@0', ctx(t, 'words', 'evolve'));
      await t.sql.query(`INSERT INTO ${t.namespace}.words (id, name) VALUES (1, 'not a number')`);
      const retype: SinkSchemaChange = { kind: 'alter.column.type', column: 'name', type: { kind: 'INT' }, nullable: false };
      await assert.rejects(applySchemaChangeOnce(session, t.dialect, ref, retype, 'words@1', ctx(t, 'words', 'evolve')), (e: unknown) => e instanceof SinkError && e.code === 'SCHEMA_CHANGE_FAILED' && !e.unrecoverable && /words/.test(e.message) && /name/.test(e.message));
      assert.equal(await session.applied('words@1'), false, `${t.name}: a failed change is not recorded`);
      const r = await applySchemaChangeOnce(session, t.dialect, ref, retype, 'words@1', ctx(t, 'words', 'try_evolve'));
      assert.ok(r.refused, `${t.name}: refused`);
      assert.equal(await session.applied('words@1'), true);
      assert.deepEqual((await session.readSchema(ref))!.columns.find((c) => c.name === 'name')!.type, { kind: 'VARCHAR', length: 40 });
    }
  });

  test('statements the target refuses whatever its data (too many columns) fail the job at once: no replay could apply them', async () => {
    for (const t of env.targets) {
      const wide: SinkSchemaChange = { kind: 'create.table', schema: { columns: Array.from({ length: 4200 }, (_, i) => ({ name: `c${i}`, type: { kind: 'INT' as const }, nullable: i > 0 })), primaryKey: ['c0'] } };
      await assert.rejects(
        applySchemaChangeOnce(t.session('pipe-w'), t.dialect, { namespace: t.namespace, table: 'wide' }, wide, 'wide@0', ctx(t, 'wide', 'evolve')),
        (e: unknown) => e instanceof SinkError && e.code === 'SCHEMA_CHANGE_INVALID' && e.unrecoverable && /wide/.test(e.message),
        t.name,
      );
    }
  });

  test("tables made from the other dialect's column types read back as the same logical types", async () => {
    const myTypes = ['int(11)', 'int(10) unsigned', 'bigint(20) unsigned', 'tinyint(1)', 'smallint(6)', 'decimal(10,2)', 'varchar(20)', 'char(3)', 'text', 'longblob', 'datetime(3)', 'timestamp(6)', 'date', 'time', 'json', "enum('a','b')", 'double', 'float'];
    const pgTypes = ['int4', 'int8', 'int2', 'bool', 'numeric(10,2)', 'numeric', 'varchar(20)', 'bpchar(3)', 'text', 'bytea', 'timestamp(3)', 'timestamptz', 'date', 'time(3)', 'jsonb', 'uuid', 'float8', 'float4'];
    const cases: Array<[Target, readonly string[], (t: string) => ReturnType<typeof logicalFromMySql>]> = [
      [env.targets[0]!, myTypes, logicalFromMySql],
      [env.targets[1]!, pgTypes, logicalFromPostgres],
    ];
    for (const [t, types, read] of cases) {
      const schema: SinkTableSchema = { columns: [{ name: 'k', type: { kind: 'VARCHAR', length: 2000 }, nullable: false }, ...types.map((ty, i) => ({ name: `c${i}`, type: read(ty), nullable: true }))], primaryKey: ['k'] };
      const ref: SinkTableRef = { namespace: t.namespace, table: 'typed' };
      const session = t.session('pipe-d');
      await applySchemaChangeOnce(session, t.dialect, ref, { kind: 'create.table', schema }, 'typed@0', ctx(t, 'typed', 'evolve'));
      const back = (await session.readSchema(ref))!;
      assert.deepEqual(back.primaryKey, ['k']);
      for (const [i, c] of schema.columns.entries()) {
        if (i === 0) continue;
        const got = back.columns[i]!.type;
        // What each dialect cannot hold as such comes back as its nearest (documented in docs/pipeline-types.md).
        const expected = t.name === 'mariadb' ? fitMySql(c.type) : fitPostgres(c.type);
        assert.deepEqual(got, expected, `${t.name}: ${types[i - 1]} -> ${JSON.stringify(c.type)}`);
      }
    }
  });
});

type Logical = ReturnType<typeof logicalFromMySql>;
function fitPostgres(t: Logical): Logical {
  if (t.kind === 'TINYINT') return { kind: 'SMALLINT' };
  if (t.kind === 'BINARY' || t.kind === 'VARBINARY') return { kind: 'BYTES' };
  if ((t.kind === 'TIME' || t.kind === 'TIMESTAMP' || t.kind === 'TIMESTAMP_LTZ') && t.precision > 6) return { ...t, precision: 6 };
  return t;
}
function fitMySql(t: Logical): Logical {
  if (t.kind === 'TIMESTAMP_LTZ') return { kind: 'TIMESTAMP', precision: t.precision };
  if (t.kind === 'DECIMAL' && t.precision === undefined) return { kind: 'DECIMAL', precision: 65, scale: 30 };
  // MariaDB's JSON is LONGTEXT with a check (MySQL's would read back as JSON).
  if (t.kind === 'JSON') return { kind: 'STRING' };
  return t;
}
