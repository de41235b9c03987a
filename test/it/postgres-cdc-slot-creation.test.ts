// Making a logical replication slot waits for every transaction that had an xid when it began: a
// session left idle in a transaction would make the source's start (or a reader's backfill slot)
// hang for ever. The wait is bounded, and the error names the server process that held it; once
// that transaction ends, the same call makes the slot.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type pg from 'pg';
import { SlotCreationBlockedError } from '../../src/connectors/postgres/index.ts';
import { PostgresReaderSession } from '../../src/connectors/postgres/postgres-reader-session.ts';
import { startPostgres, type PostgresServer } from '../fixtures/postgres-server.ts';
import { connectPg } from '../fixtures/pg-cdc-workload.ts';

let server: PostgresServer;
let sql: pg.Client;
before(async () => {
  server = await startPostgres();
  sql = await connectPg(server);
  await sql.query('CREATE TABLE held (id int PRIMARY KEY)');
});
after(async () => {
  await sql?.end();
  await server?.stop();
});

test("a backfill slot blocked by an open transaction: a bounded wait, an error naming the blocking pid; made once it ends", { timeout: 60_000 }, async () => {
  const holder = await connectPg(server);
  const [{ pid }] = (await holder.query('SELECT pg_backend_pid() AS pid')).rows as [{ pid: number }];
  await holder.query('BEGIN');
  await holder.query('INSERT INTO held VALUES (1)'); // an xid: the slot's snapshot must wait for it
  const session = await PostgresReaderSession.connect({ ...server.connectionOptions(), tables: ['public.held'], slotName: 'blocked', slotCreationTimeoutMs: 1500 }, 0);
  try {
    const started = performance.now();
    const error = await session.currentPosition().then(
      () => assert.fail('the slot was made while a transaction was open'),
      (e: unknown) => e,
    );
    const waited = performance.now() - started;
    assert.ok(error instanceof SlotCreationBlockedError, String(error));
    assert.equal(error.slot, 'blocked_b0');
    assert.deepEqual(error.blockingPids, [pid]);
    assert.equal(error.unrecoverable, false, 'a restart makes the slot once the transaction ends');
    assert.match(error.message, new RegExp(`waited 1500 ms .*server process ${pid} \\(transaction \\d+, idle in transaction since .*last statement: INSERT INTO held`));
    assert.ok(waited >= 1500, `gave up after ${Math.round(waited)} ms, before its bound`);
    const slots = (await sql.query("SELECT slot_name FROM pg_replication_slots WHERE slot_name = 'blocked_b0'")).rows;
    assert.deepEqual(slots, [], 'no half-made slot is left');

    await holder.query('COMMIT');
    await session.currentPosition();
    const made = (await sql.query("SELECT slot_name FROM pg_replication_slots WHERE slot_name = 'blocked_b0'")).rows;
    assert.equal(made.length, 1, 'the slot is made once the transaction has ended');
  } finally {
    await session.close();
    await holder.end();
  }
});
