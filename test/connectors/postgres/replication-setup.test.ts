import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { startPostgres, type PostgresServer } from '../../fixtures/postgres-server.ts';
import { PgSqlClient } from '../../../src/connectors/postgres/pg-sql-client.ts';
import { explainSlotFailure, prepareReplication, type ReplicationSetupOptions } from '../../../src/connectors/postgres/replication-setup.ts';
import {
  MissingObjectError,
  ReplicationPrivilegeError,
  ReplicationStreamError,
  SlotInUseError,
  SlotInvalidatedError,
  TableNotPublishedError,
  WalLevelError,
} from '../../../src/connectors/postgres/postgres-cdc-error.ts';
import { PgLogReader } from '../../../src/connectors/postgres/pg-log-reader.ts';

const site = (s: PostgresServer) => ({ host: s.host, port: s.port });
const options = (over: Partial<ReplicationSetupOptions> = {}): ReplicationSetupOptions => ({
  publication: 'weir_pub',
  slot: 'weir_slot',
  tables: [{ schema: 'public', table: 'orders' }],
  createMissing: true,
  ...over,
});

async function withSql<T>(server: PostgresServer, user: string, f: (sql: PgSqlClient) => Promise<T>): Promise<T> {
  const sql = await PgSqlClient.connect({ ...server.connectionOptions(), user, password: user });
  try {
    return await f(sql);
  } finally {
    await sql.close();
  }
}

test('publication and slot: created when missing, checked when present, and each fault a typed error naming server, object and fix', async () => {
  const server = await startPostgres();
  const admin = new pg.Client(server.connectionOptions());
  await admin.connect();
  try {
    await admin.query(`ALTER ROLE postgres PASSWORD 'postgres'`);
    await admin.query(`CREATE TABLE orders (id int PRIMARY KEY, v text)`);
    await admin.query(`CREATE TABLE parted (id int PRIMARY KEY, v text) PARTITION BY RANGE (id)`);
    await admin.query(`CREATE TABLE parted_1 PARTITION OF parted FOR VALUES FROM (0) TO (100)`);
    await admin.query(`CREATE TABLE other (id int PRIMARY KEY)`);
    await admin.query(`CREATE ROLE plain LOGIN PASSWORD 'plain'`);
    await admin.query(`CREATE ROLE repl LOGIN REPLICATION PASSWORD 'repl'`);
    const tables = [{ schema: 'public', table: 'orders' }, { schema: 'public', table: 'parted' }];

    // No REPLICATION: refused before anything is created.
    const noRepl = await withSql(server, 'plain', (sql) => prepareReplication(sql, site(server), options({ tables })).catch((e: unknown) => e));
    assert.ok(noRepl instanceof ReplicationPrivilegeError, String(noRepl));
    assert.equal(noRepl.user, 'plain');
    assert.match(noRepl.message, new RegExp(`127\\.0\\.0\\.1:${server.port}.*ALTER ROLE "plain" WITH REPLICATION`));

    // REPLICATION but not the tables' owner: the publication cannot be created.
    const notOwner = await withSql(server, 'repl', (sql) => prepareReplication(sql, site(server), options({ tables })).catch((e: unknown) => e));
    assert.ok(notOwner instanceof MissingObjectError, String(notOwner));
    assert.deepEqual([notOwner.objectKind, notOwner.objectName], ['publication', 'weir_pub']);
    assert.match(notOwner.message, /permission denied for database postgres.*CREATE right on the database and ownership of its tables/);

    // Not allowed to create: named with the statement to run.
    const noCreate = await withSql(server, 'postgres', (sql) => prepareReplication(sql, site(server), options({ tables, createMissing: false })).catch((e: unknown) => e));
    assert.ok(noCreate instanceof MissingObjectError && /CREATE PUBLICATION "weir_pub"/.test(noCreate.message), String(noCreate));

    const made = await withSql(server, 'postgres', (sql) => prepareReplication(sql, site(server), options({ tables })));
    assert.deepEqual([made.publicationCreated, made.slotCreated], [true, true]);
    const pub = await admin.query(`SELECT pubviaroot FROM pg_publication WHERE pubname = 'weir_pub'`);
    assert.equal(pub.rows[0].pubviaroot, true, 'publish_via_partition_root');
    const again = await withSql(server, 'postgres', (sql) => prepareReplication(sql, site(server), options({ tables })));
    assert.deepEqual([again.publicationCreated, again.slotCreated, again.confirmedFlush], [false, false, made.confirmedFlush]);

    // A partition's rows arrive under the root's name.
    const reader = await PgLogReader.open({ ...server.connectionOptions(), slot: 'weir_slot', publication: 'weir_pub', start: made.confirmedFlush, warn: () => {} });
    try {
      await admin.query(`INSERT INTO parted VALUES (5, 'p')`);
      let e = await reader.read();
      while (e.kind !== 'change') e = await reader.read();
      assert.deepEqual([e.record.table, e.record.after], ['public.parted', { id: 5, v: 'p' }]);

      // The slot is streamed: a second reader is told which process holds it.
      const pid = (await admin.query(`SELECT active_pid FROM pg_replication_slots WHERE slot_name = 'weir_slot'`)).rows[0].active_pid as number;
      const inUse = await withSql(server, 'postgres', (sql) => prepareReplication(sql, site(server), options({ tables })).catch((err: unknown) => err));
      assert.ok(inUse instanceof SlotInUseError, String(inUse));
      assert.deepEqual([inUse.slot, inUse.activePid], ['weir_slot', pid]);
      assert.match(inUse.message, new RegExp(`in use by the server process ${pid}.*slotName`));
      // Racing past the check, START_REPLICATION itself fails; the slot's state names the cause.
      const raced = await PgLogReader.open({ ...server.connectionOptions(), slot: 'weir_slot', publication: 'weir_pub', start: 0n, warn: () => {} }).catch((err: unknown) => err);
      assert.ok(raced instanceof ReplicationStreamError && raced.sqlState === '55006', String(raced));
      const explained = await withSql(server, 'postgres', (sql) => explainSlotFailure(sql, site(server), 'weir_slot'));
      assert.ok(explained instanceof SlotInUseError);
    } finally {
      await reader.close();
    }

    // A captured table the existing publication lacks.
    const outside = await withSql(server, 'postgres', (sql) =>
      prepareReplication(sql, site(server), options({ tables: [...tables, { schema: 'public', table: 'other' }] })).catch((e: unknown) => e),
    );
    assert.ok(outside instanceof TableNotPublishedError, String(outside));
    assert.deepEqual([outside.table, outside.publication], ['public.other', 'weir_pub']);
    assert.match(outside.message, /ALTER PUBLICATION "weir_pub" ADD TABLE public\.other/);
    // Unless tables added later are taken (scanNewlyAddedTables): then it joins the publication.
    await withSql(server, 'postgres', (sql) => prepareReplication(sql, site(server), options({ tables: [...tables, { schema: 'public', table: 'other' }], publishMissingTables: true })));
    const published = await admin.query("SELECT tablename FROM pg_publication_tables WHERE pubname = 'weir_pub' AND tablename = 'other'");
    assert.equal(published.rowCount, 1, 'the table joined the publication');

    // A slot that fell behind max_slot_wal_keep_size is invalidated at a checkpoint.
    await admin.query(`SELECT pg_create_logical_replication_slot('doomed', 'pgoutput')`);
    await admin.query(`ALTER SYSTEM SET max_slot_wal_keep_size = '1MB'`);
    await admin.query(`SELECT pg_reload_conf()`);
    for (let i = 0; i < 4; i++) {
      await admin.query(`INSERT INTO other VALUES (${i})`);
      await admin.query(`SELECT pg_switch_wal()`);
    }
    await admin.query(`CHECKPOINT`);
    const lost = await withSql(server, 'postgres', (sql) => prepareReplication(sql, site(server), options({ tables, slot: 'doomed' })).catch((e: unknown) => e));
    assert.ok(lost instanceof SlotInvalidatedError, String(lost));
    assert.deepEqual([lost.slot, lost.walStatus, lost.setting, lost.unrecoverable], ['doomed', 'lost', 'max_slot_wal_keep_size', true]);
    assert.match(lost.message, /wal_status = 'lost'.*raise max_slot_wal_keep_size/);
  } finally {
    await admin.end();
    await server.stop();
  }
});

test('a server without wal_level=logical is refused, naming the setting', async () => {
  const server = await startPostgres({ settings: { wal_level: 'replica' } });
  try {
    const e = await withSql(server, 'postgres', (sql) => prepareReplication(sql, site(server), options()).catch((err: unknown) => err));
    assert.ok(e instanceof WalLevelError, String(e));
    assert.deepEqual([e.setting, e.actual, e.host, e.port, e.unrecoverable], ['wal_level', 'replica', '127.0.0.1', server.port, true]);
    assert.match(e.message, /wal_level is 'replica'.*wal_level = logical.*restart the server/);
  } finally {
    await server.stop();
  }
});
