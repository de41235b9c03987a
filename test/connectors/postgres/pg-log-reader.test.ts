import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { startPostgres } from '../../fixtures/postgres-server.ts';
import { PgLogReader, type LogEvent } from '../../../src/connectors/postgres/pg-log-reader.ts';
import { parseLsn } from '../../../src/connectors/postgres/lsn.ts';

async function until(reader: PgLogReader, stop: (e: LogEvent) => boolean): Promise<LogEvent[]> {
  const seen: LogEvent[] = [];
  for (;;) {
    const e = await reader.read();
    if (e.kind !== 'keepalive') seen.push(e);
    if (stop(e)) return seen;
  }
}

test('the pgoutput stream gives inserts, updates (key change included), deletes and truncates as change records, in commit order, with commit LSNs and transaction ids', async () => {
  const server = await startPostgres();
  const admin = new pg.Client(server.connectionOptions());
  await admin.connect();
  try {
    await admin.query(`CREATE TABLE public.t (id int PRIMARY KEY, v text, n int8)`);
    await admin.query(`CREATE TABLE public.f (id int PRIMARY KEY, v text)`);
    await admin.query(`ALTER TABLE public.f REPLICA IDENTITY FULL`);
    await admin.query(`CREATE PUBLICATION p FOR TABLE public.t, public.f`);
    const slot = await admin.query(`SELECT lsn::text FROM pg_create_logical_replication_slot('s', 'pgoutput')`);
    const warnings: string[] = [];
    let txEnd: bigint | undefined;
    let txFirst: Array<{ lsn: string }> = [];
    const reader = await PgLogReader.open({ ...server.connectionOptions(), slot: 's', publication: 'p', start: parseLsn(slot.rows[0].lsn), warn: (m) => warnings.push(m) });
    try {
      await admin.query(`INSERT INTO t VALUES (1, 'a', 10), (2, 'b', 9007199254740993)`);
      await admin.query(`BEGIN; UPDATE t SET v = 'a2' WHERE id = 1; UPDATE t SET id = 3 WHERE id = 2; DELETE FROM t WHERE id = 1; COMMIT`);
      await admin.query(`INSERT INTO f VALUES (1, 'x'); UPDATE f SET v = 'y'; DELETE FROM f`);
      await admin.query(`UPDATE t SET v = 'again' WHERE id = 3`);
      await admin.query(`TRUNCATE t`);
      const commit = await admin.query(`SELECT pg_current_wal_lsn()::text AS lsn`);
      const events = await until(reader, (e) => e.kind === 'truncate');
      const changes = events.flatMap((e) => (e.kind === 'change' ? [e.record] : []));
      assert.deepEqual(
        changes.map((r) => [r.op, r.table, r.before, r.after]),
        [
          ['c', 'public.t', null, { id: 1, v: 'a', n: 10n }],
          ['c', 'public.t', null, { id: 2, v: 'b', n: 9007199254740993n }],
          ['u', 'public.t', null, { id: 1, v: 'a2', n: 10n }],
          ['u', 'public.t', { id: 2 }, { id: 3, v: 'b', n: 9007199254740993n }],
          ['d', 'public.t', { id: 1 }, null],
          ['c', 'public.f', null, { id: 1, v: 'x' }],
          ['u', 'public.f', { id: 1, v: 'x' }, { id: 1, v: 'y' }],
          ['d', 'public.f', { id: 1, v: 'y' }, null],
          ['u', 'public.t', null, { id: 3, v: 'again', n: 9007199254740993n }],
        ],
      );
      // One transaction: one commit LSN and xid, changes numbered within it.
      const tx = changes.slice(2, 5).map((r) => r.source);
      txEnd = events.flatMap((e) => (e.kind === 'commit' && e.commitLsn === parseLsn(tx[0]!.lsn) ? [e.endLsn] : []))[0];
      assert.ok(txEnd !== undefined && txEnd > parseLsn(tx[0]!.lsn));
      txFirst = tx;
      assert.equal(new Set(tx.map((s) => s.lsn)).size, 1);
      assert.equal(new Set(tx.map((s) => s.txId)).size, 1);
      assert.deepEqual(tx.map((s) => s.index), [0, 1, 2]);
      const lsns = changes.map((r) => parseLsn(r.source.lsn));
      for (let i = 1; i < lsns.length; i++) assert.ok(lsns[i]! >= lsns[i - 1]!, 'commit LSNs never go back');
      assert.ok(lsns.every((l) => l < parseLsn(commit.rows[0].lsn)));
      const trunc = events.at(-1)!;
      assert.equal(trunc.kind, 'truncate');
      assert.deepEqual(trunc.kind === 'truncate' && trunc.tables, ['public.t']);
      assert.equal(warnings.length, 1, `one warning for public.t, none for the FULL table: ${warnings.join(' | ')}`);
      assert.match(warnings[0]!, /public\.t has REPLICA IDENTITY DEFAULT.*ALTER TABLE public\.t REPLICA IDENTITY FULL/);
      assert.ok(reader.position > parseLsn(slot.rows[0].lsn));
    } finally {
      await reader.close();
    }
    // The stream acknowledged nothing: the slot is where it was created.
    const after = await admin.query(`SELECT confirmed_flush_lsn::text AS c, active FROM pg_replication_slots WHERE slot_name = 's'`);
    assert.equal(after.rows[0].c, slot.rows[0].lsn);

    // Resuming: from a transaction's commit LSN it comes again whole; from its end LSN, the next one comes.
    const first = async (start: bigint) => {
      // The walsender of the previous reader may still be exiting: wait until the slot is free.
      while ((await admin.query(`SELECT active FROM pg_replication_slots WHERE slot_name = 's'`)).rows[0].active) await new Promise((r) => setImmediate(r));
      const again = await PgLogReader.open({ ...server.connectionOptions(), slot: 's', publication: 'p', start, warn: () => {} });
      try {
        const seen = await until(again, (e) => e.kind === 'commit');
        return seen.flatMap((e) => (e.kind === 'change' ? [[e.record.op, e.record.after ?? e.record.before]] : []));
      } finally {
        await again.close();
      }
    };
    assert.deepEqual(await first(parseLsn(txFirst[0]!.lsn)), [['u', { id: 1, v: 'a2', n: 10n }], ['u', { id: 3, v: 'b', n: 9007199254740993n }], ['d', { id: 1 }]]);
    // (The three statements on f were one simple query: one transaction.)
    assert.deepEqual(await first(txEnd!), [['c', { id: 1, v: 'x' }], ['u', { id: 1, v: 'y' }], ['d', { id: 1, v: 'y' }]]);
  } finally {
    await admin.end();
    await server.stop();
  }
});
