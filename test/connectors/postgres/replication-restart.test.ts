import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { startPostgres } from '../../fixtures/postgres-server.ts';
import { PostgresDialect } from '../../../src/connectors/postgres/postgres-dialect.ts';
import { ReplicationStreamError } from '../../../src/connectors/postgres/postgres-cdc-error.ts';
import { parseLsn } from '../../../src/connectors/postgres/lsn.ts';

test('a lost replication connection fails the open WAL stream with a recoverable error, and a new stream from the last boundary continues with nothing lost', async () => {
  const server = await startPostgres();
  const dialect = new PostgresDialect({ ...server.connectionOptions(), tables: ['public.t'], slotName: 'weir', publicationName: 'weir_pub', warn: () => {} });
  const admin = new pg.Client(server.connectionOptions());
  await admin.connect();
  await admin.query('CREATE TABLE t (id int PRIMARY KEY)');
  const catalog = await dialect.connectCatalog();
  await catalog.check();
  await catalog.close();
  const start = parseLsn((await admin.query(`SELECT confirmed_flush_lsn::text AS c FROM pg_replication_slots WHERE slot_name = 'weir'`)).rows[0].c);
  await admin.query('INSERT INTO t VALUES (1)');
  await admin.end();

  let session = await dialect.connectReader(0, 1);
  let log = await session.openLog(start);
  const ids: unknown[] = [];
  let resumeAt = start;
  const drain = async (until: number) => {
    while (ids.length < until) {
      const e = log.next();
      if (!e) await log.available();
      else if (e.type === 'rows') ids.push(e.rows[0]!.after!.id);
      else resumeAt = e.next;
    }
  };
  try {
    await drain(1);
    // The server ends the walsender (as at a failover or an administrator's pg_terminate_backend).
    // (A fast shutdown: see the next test.)
    const killer = new pg.Client(server.connectionOptions());
    await killer.connect();
    await killer.query(`SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name = 'weir'`);
    await killer.end();
    const failure = await (async () => {
      for (;;) {
        const e = log.next();
        if (!e) await log.available();
        else if (e.type === 'boundary') resumeAt = e.next;
      }
    })().catch((e: unknown) => e);
    assert.ok(resumeAt > start, "the first transaction's boundary came before the failure");
    assert.ok(failure instanceof ReplicationStreamError, String(failure));
    assert.equal(failure.unrecoverable, false, 'a restart of the job can fix it');
    await log.close();
    await session.close();

    const again = new pg.Client(server.connectionOptions());
    await again.connect();
    await again.query('INSERT INTO t VALUES (2)');
    await again.end();
    session = await dialect.connectReader(0, 1);
    log = await session.openLog(resumeAt);
    await drain(2);
    assert.deepEqual(ids, [1, 2]);
  } finally {
    await log.close();
    await session.close();
    await server.stop();
  }
});

test('a fast shutdown of the server while a reader streams completes (the walsender is told everything is received, not flushed): the slot does not move, and a new stream from the last boundary loses nothing', async () => {
  const server = await startPostgres();
  const dialect = new PostgresDialect({ ...server.connectionOptions(), tables: ['public.t'], slotName: 'weir', publicationName: 'weir_pub', warn: () => {} });
  const admin = new pg.Client(server.connectionOptions());
  await admin.connect();
  await admin.query('CREATE TABLE t (id int PRIMARY KEY)');
  const catalog = await dialect.connectCatalog();
  await catalog.check();
  await catalog.close();
  const confirmed = async (c: pg.Client) => (await c.query(`SELECT confirmed_flush_lsn::text AS c FROM pg_replication_slots WHERE slot_name = 'weir'`)).rows[0].c as string;
  const start = parseLsn(await confirmed(admin));
  await admin.query('INSERT INTO t SELECT generate_series(1, 50)');
  await admin.end();

  let session = await dialect.connectReader(0, 1);
  let log = await session.openLog(start);
  const ids: unknown[] = [];
  let resumeAt = start;
  try {
    while (ids.length < 50) {
      const e = log.next();
      if (!e) await log.available();
      else if (e.type === 'rows') ids.push(e.rows[0]!.after!.id);
      else resumeAt = e.next;
    }
    // The reader has everything, and confirmed nothing (no checkpoint completed).
    const began = performance.now();
    const failed = (async () => {
      for (;;) {
        const e = log.next();
        if (!e) await log.available();
        else if (e.type === 'boundary') resumeAt = e.next;
      }
    })().catch((e: unknown) => e);
    await server.restart();
    const restartMs = performance.now() - began;
    assert.ok(restartMs < 15_000, `the restart took ${Math.round(restartMs)} ms`);
    const failure = await failed;
    assert.ok(failure instanceof ReplicationStreamError, String(failure));
    assert.equal(failure.unrecoverable, false);
    await log.close();
    await session.close();

    const again = new pg.Client(server.connectionOptions());
    await again.connect();
    assert.equal(parseLsn(await confirmed(again)), start, "the slot's confirmed LSN did not move");
    await again.query('INSERT INTO t VALUES (51)');
    await again.end();
    session = await dialect.connectReader(0, 1);
    log = await session.openLog(resumeAt);
    while (ids.length < 51) {
      const e = log.next();
      if (!e) await log.available();
      else if (e.type === 'rows') ids.push(e.rows[0]!.after!.id);
    }
    assert.deepEqual(ids, Array.from({ length: 51 }, (_, i) => i + 1));
  } finally {
    await log.close();
    await session.close();
    await server.stop();
  }
});
