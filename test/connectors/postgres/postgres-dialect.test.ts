import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { startPostgres } from '../../fixtures/postgres-server.ts';
import { PostgresDialect } from '../../../src/connectors/postgres/postgres-dialect.ts';
import { inChunk } from '../../../src/connectors/cdc/chunk-key.ts';
import type { SnapshotSplit } from '../../../src/connectors/cdc/cdc-split.ts';
import type { CdcLogReader, CdcReaderSession } from '../../../src/connectors/cdc/cdc-dialect.ts';
import type { PgChangeSource } from '../../../src/connectors/postgres/pg-change-record.ts';
import { compareLsn, formatLsn, parseLsn, type Lsn } from '../../../src/connectors/postgres/lsn.ts';
import { readChunk } from '../../../src/connectors/cdc/snapshot-chunk-reader.ts';
import { PgSqlClient } from '../../../src/connectors/postgres/pg-sql-client.ts';
import { slotLagBytes } from '../../../src/connectors/postgres/slot-lag.ts';
import { ReplicationConnection } from '../../../src/connectors/postgres/replication-connection.ts';

/** A deterministic pseudo-random sequence (mulberry32). */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Random single-row changes (inserts, updates, key changes, deletes), applied to the table and to an in-memory model of it. */
function mutator(admin: pg.Client, model: Map<number, number>, seed: number) {
  const rand = rng(seed);
  return async (n: number) => {
    for (let i = 0; i < n; i++) {
      const ids = [...model.keys()];
      const pick = ids[Math.floor(rand() * ids.length)]!;
      const roll = rand();
      if (roll < 0.3) {
        const id = 3000 + Math.floor(rand() * 100000);
        if (model.has(id)) continue;
        await admin.query('INSERT INTO t VALUES ($1, $2)', [id, i]);
        model.set(id, i);
      } else if (roll < 0.6) {
        await admin.query('UPDATE t SET v = v + 1 WHERE id = $1', [pick]);
        model.set(pick, model.get(pick)! + 1);
      } else if (roll < 0.8) {
        const to = Math.floor(rand() * 2000) + (rand() < 0.5 ? 0 : 100000);
        if (model.has(to)) continue;
        await admin.query('UPDATE t SET id = $2 WHERE id = $1', [pick, to]);
        model.set(to, model.get(pick)!);
        model.delete(pick);
      } else {
        await admin.query('DELETE FROM t WHERE id = $1', [pick]);
        model.delete(pick);
      }
    }
  };
}

/** The core's chunk read (cdc/snapshot-chunk-reader.ts), with changes made while the SELECT runs: before it, and after it but before HIGH. */
async function readChunkWith(session: CdcReaderSession<Lsn, PgChangeSource>, split: SnapshotSplit, between: { beforeSelect(): Promise<void>; afterSelect(): Promise<void>; afterHigh(): Promise<void> }) {
  const wrapped = {
    currentPosition: () => session.currentPosition(),
    rowIdentity: (db: string, table: string) => session.rowIdentity(db, table),
    openLog: async (from: Lsn, backfill?: { db: string; table: string }) => {
      await between.afterHigh();
      return session.openLog(from, backfill);
    },
    selectChunk: async (s: SnapshotSplit) => {
      await between.beforeSelect();
      const rows = await session.selectChunk(s);
      await between.afterSelect();
      return rows;
    },
  };
  return readChunk({ session: wrapped, comparePositions: compareLsn, logName: 'the WAL' }, split);
}

test('the core\'s chunk read on the PostgreSQL dialect (LOW, SELECT, HIGH, the backfill slot between them merged) equals the table as of HIGH, chunk after chunk, with changes after HIGH left out', async () => {
  const server = await startPostgres();
  const admin = new pg.Client(server.connectionOptions());
  await admin.connect();
  const dialect = new PostgresDialect({ ...server.connectionOptions(), tables: ['public.t'], slotName: 'weir', publicationName: 'weir_pub', warn: () => {} });
  const catalog = await dialect.connectCatalog();
  const session = await dialect.connectReader(0, 1);
  try {
    await admin.query('CREATE TABLE t (id int PRIMARY KEY, v int)');
    await admin.query('INSERT INTO t SELECT g, 0 FROM generate_series(0, 1999) g');
    const model = new Map<number, number>(Array.from({ length: 2000 }, (_, i) => [i, 0]));
    await catalog.check();
    const [table] = await catalog.listTables();
    assert.deepEqual(table, { db: 'public', table: 't', keyColumn: 'id', keyKind: 'integer' });
    const range = await catalog.keyRange(table!);
    assert.deepEqual([range.min, range.max], [0, 1999]);
    assert.equal(await catalog.keyAtOffset(table!, 0, 1000), 1000);
    assert.equal(await catalog.keyAfter(table!, 1000), 1001);

    const mutate = mutator(admin, model, 7);
    const split = (index: number, start: number | null, end: number | null): SnapshotSplit => ({ kind: 'snapshot', id: `public.t#${index}`, db: 'public', table: 't', keyColumn: 'id', keyKind: 'integer', index, start, end });
    const chunks = [split(0, null, 700), split(1, 700, 1400), split(2, 1400, null)];
    // The server process streaming the backfill slot as each chunk's backfill begins: one stream for all chunks.
    const streamedBy: Array<number | null> = [];
    const backfillPid = async () => ((await admin.query(`SELECT active_pid FROM pg_replication_slots WHERE slot_name = 'weir_b0'`)).rows[0]?.active_pid as number | null) ?? null;
    for (const [i, s] of chunks.entries()) {
      let atHigh: Map<number, number> | undefined;
      const { rows, merged } = await readChunkWith(session, s, {
        beforeSelect: () => mutate(40),
        afterSelect: async () => {
          await mutate(40);
          atHigh = new Map(model);
        },
        // Changes after HIGH, before the backfill reads (none for the last chunk: its backfill ends on the server's keepalive).
        afterHigh: async () => {
          streamedBy.push(await backfillPid());
          if (i < chunks.length - 1) await mutate(20);
        },
      });
      const expected = [...atHigh!].filter(([id]) => inChunk('integer', id, s.start, s.end)).map(([id, v]) => ({ id, v })).sort((a, b) => a.id - b.id);
      const got = Array.from({ length: rows.length }, (_, i) => rows.at(i)!).map((r) => ({ id: r.id as number, v: r.v as number })).sort((a, b) => a.id - b.id);
      assert.ok(merged > 0, `chunk ${i}: changes between LOW and HIGH were merged`);
      assert.deepEqual(got, expected, `chunk ${i} equals the model as of HIGH`);
    }
    const source = session.snapshotSource(chunks[0]!, 0x10n, 3, 1234);
    assert.deepEqual(source, { db: 'postgres', schema: 'public', table: 't', lsn: '0/10', changeLsn: '0/10', index: 3, txId: null, ts: 1234, snapshot: true });
    assert.equal(streamedBy[0], null, 'the first backfill opens the stream');
    assert.ok(streamedBy[1] !== null && streamedBy[2] === streamedBy[1] && (await backfillPid()) === streamedBy[1], `the later chunks read on the first one's stream: server processes ${streamedBy.join(', ')}`);
    const slots = await admin.query(`SELECT slot_name FROM pg_replication_slots ORDER BY 1`);
    assert.deepEqual(slots.rows.map((r) => r.slot_name), ['weir', 'weir_b0'], "the source's slot and the reader's backfill slot");
    await session.close();
    const left = await admin.query(`SELECT slot_name FROM pg_replication_slots ORDER BY 1`);
    assert.deepEqual(left.rows.map((r) => r.slot_name), ['weir'], 'the backfill slot is dropped with the session');
  } finally {
    await session.close().catch(() => {});
    await catalog.close();
    await admin.end();
    await server.stop();
  }
});

test('WAL retention: while a captured table is idle and another takes writes, the slot is confirmed from keepalives and its restart LSN keeps moving; its lag in bytes is measured', async () => {
  const server = await startPostgres();
  const admin = new pg.Client(server.connectionOptions());
  await admin.connect();
  const dialect = new PostgresDialect({ ...server.connectionOptions(), tables: ['public.captured'], slotName: 'weir', publicationName: 'weir_pub', lsnCommitCheckpointsDelay: 1, warn: () => {} });
  const catalog = await dialect.connectCatalog();
  const session = await dialect.connectReader(0, 1);
  const sql = await PgSqlClient.connect(server.connectionOptions());
  let log: CdcLogReader<Lsn, PgChangeSource> | undefined;
  try {
    await admin.query('CREATE TABLE captured (id int PRIMARY KEY)');
    await admin.query('CREATE TABLE busy (id serial PRIMARY KEY, pad text)');
    await catalog.check();
    const start = await catalog.startup().then(async () => (await admin.query(`SELECT confirmed_flush_lsn::text AS c, restart_lsn::text AS r FROM pg_replication_slots WHERE slot_name = 'weir'`)).rows[0]);
    log = await session.openLog(parseLsn(start.c));
    await admin.query('INSERT INTO captured VALUES (1)');
    // The core's part: it reads, and reports completed checkpoints with its resume position.
    let ev = log.next();
    while (!ev || ev.type !== 'boundary') {
      if (!ev) await log.available();
      ev = log.next();
    }
    const afterRow = ev.next;
    log.checkpointComplete!(afterRow);
    log.checkpointComplete!(afterRow); // confirmed one checkpoint late
    const slotRow = async () => (await admin.query(`SELECT pg_wal_lsn_diff(confirmed_flush_lsn, '0/0')::text AS c, pg_wal_lsn_diff(restart_lsn, '0/0')::text AS r FROM pg_replication_slots WHERE slot_name = 'weir'`)).rows[0];
    const first = await slotRow();
    const lagBefore = await slotLagBytes(sql, 'weir');
    assert.ok(lagBefore !== null && lagBefore >= 0);
    // Only the other table changes now; no checkpoint completes.
    const deadline = Date.now() + 60_000;
    let now = first;
    while (Date.now() < deadline) {
      await admin.query(`INSERT INTO busy (pad) SELECT repeat('x', 500) FROM generate_series(1, 2000); CHECKPOINT`);
      while (log.next()) {} // nothing of the captured table comes; keep the buffer empty
      now = await slotRow();
      if (BigInt(now.r) > BigInt(first.r) + 2_000_000n) break;
    }
    assert.ok(BigInt(now.c) > BigInt(first.c), `confirmed_flush moved: ${first.c} -> ${now.c}`);
    assert.ok(BigInt(now.r) > BigInt(first.r) + 2_000_000n, `restart_lsn moved past 2 MB of other tables' WAL: ${first.r} -> ${now.r}`);
    // Once the writes stop, the reader confirms the server's WAL end from its next keepalive (on a
    // loaded machine it may be a write or two behind when they stop).
    let lag = await slotLagBytes(sql, 'weir');
    for (const until = Date.now() + 20_000; (lag === null || lag >= 2_000_000) && Date.now() < until; lag = await slotLagBytes(sql, 'weir')) {
      while (log.next()) {}
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.ok(lag !== null && lag < 2_000_000, `the slot's lag comes back down: ${lag} bytes`);
    // The WAL phase's reader reports it among its metrics (asked at open and every 5 s).
    const reported = log.metrics?.()['wal_slot_lag_bytes'];
    assert.ok(typeof reported === 'number' && reported >= 0, `wal_slot_lag_bytes: ${reported}`);
  } finally {
    await log?.close();
    await sql.close();
    await session.close();
    await catalog.close();
    await admin.end();
    await server.stop();
  }
});

test('a transaction that commits right after the HIGH query is after HIGH: not merged into the chunk, and placed after HIGH for the WAL phase to emit', async () => {
  const server = await startPostgres();
  const admin = new pg.Client(server.connectionOptions());
  const open = new pg.Client(server.connectionOptions());
  await admin.connect();
  await open.connect();
  const dialect = new PostgresDialect({ ...server.connectionOptions(), tables: ['public.t'], slotName: 'weir', publicationName: 'weir_pub', warn: () => {} });
  const catalog = await dialect.connectCatalog();
  const session = await dialect.connectReader(0, 1);
  let log: CdcLogReader<Lsn, PgChangeSource> | undefined;
  try {
    await admin.query('CREATE TABLE t (id int PRIMARY KEY)');
    await admin.query('INSERT INTO t SELECT generate_series(1, 10)');
    await catalog.check();
    const start = parseLsn((await admin.query(`SELECT confirmed_flush_lsn::text AS c FROM pg_replication_slots WHERE slot_name = 'weir'`)).rows[0].c);
    await session.currentPosition(); // makes the backfill slot, which waits for open transactions to end
    await open.query('BEGIN');
    await open.query('INSERT INTO t VALUES (100)');
    let positions = 0;
    const wrapped = {
      rowIdentity: (db: string, table: string) => session.rowIdentity(db, table),
      selectChunk: (s: SnapshotSplit) => session.selectChunk(s),
      openLog: (from: Lsn, backfill?: { db: string; table: string }) => session.openLog(from, backfill),
      currentPosition: async () => {
        const p = await session.currentPosition();
        // The commit record is the next WAL record after the HIGH query.
        if (++positions === 2) await open.query('COMMIT');
        return p;
      },
    };
    const split: SnapshotSplit = { kind: 'snapshot', id: 'public.t#0', db: 'public', table: 't', keyColumn: 'id', keyKind: 'integer', index: 0, start: null, end: null };
    const { rows, high } = await readChunk({ session: wrapped, comparePositions: compareLsn, logName: 'the WAL' }, split);
    assert.deepEqual(Array.from({ length: rows.length }, (_, i) => rows.at(i)!.id).sort((a, b) => (a as number) - (b as number)), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 'the chunk holds the table as the SELECT saw it');
    log = await session.openLog(start);
    let at: Lsn | undefined;
    while (at === undefined) {
      const e = log.next();
      if (!e) await log.available();
      else if (e.type === 'rows' && e.rows[0]!.after!.id === 100) at = e.at;
    }
    assert.ok(at > high, `the insert committed at ${formatLsn(at)}, after HIGH ${formatLsn(high)}: the WAL phase emits it`);
  } finally {
    await log?.close();
    await session.close();
    await catalog.close();
    await open.end();
    await admin.end();
    await server.stop();
  }
});

test("the enumerator's check drops backfill slots of readers beyond the job's parallelism (left by a run with more readers), and keeps the others", async () => {
  const server = await startPostgres();
  const admin = new pg.Client(server.connectionOptions());
  await admin.connect();
  const dialect = new PostgresDialect({ ...server.connectionOptions(), tables: ['public.t'], slotName: 'weir', publicationName: 'weir_pub', warn: () => {} });
  try {
    await admin.query('CREATE TABLE t (id int PRIMARY KEY)');
    for (const s of ['weir_b0', 'weir_b1', 'weir_b2', 'weir_bx', 'other_b3']) await admin.query(`SELECT pg_create_logical_replication_slot($1, 'pgoutput')`, [s]);
    const catalog = await dialect.connectCatalog(1);
    const warnings: string[] = [];
    await catalog.check((m) => warnings.push(m));
    await catalog.close();
    const slots = (await admin.query('SELECT slot_name FROM pg_replication_slots ORDER BY 1')).rows.map((r) => r.slot_name);
    assert.deepEqual(slots, ['other_b3', 'weir', 'weir_b0', 'weir_bx']);
    assert.equal(warnings.length, 2);
    assert.match(warnings[0]!, /dropped replication slot 'weir_b1', a backfill slot left by a run of this source with more parallel readers/);
  } finally {
    await admin.end();
    await server.stop();
  }
});

test("a reader's backfill slot still streamed by the run before (its stream closing after a stop) is awaited, dropped and made afresh, not left to fail the new slot's creation", async () => {
  const server = await startPostgres();
  const admin = new pg.Client(server.connectionOptions());
  await admin.connect();
  const warnings: string[] = [];
  let holder: ReplicationConnection | undefined;
  const dialect = new PostgresDialect({
    ...server.connectionOptions(),
    tables: ['public.t'],
    slotName: 'weir',
    publicationName: 'weir_pub',
    // The run before ends its stream only once the new reader has seen the slot in use.
    warn: (m) => {
      warnings.push(m);
      if (m.includes("backfill slot 'weir_b0' is still streamed")) void holder?.close();
    },
  });
  const catalog = await dialect.connectCatalog();
  const session = await dialect.connectReader(0, 1);
  try {
    await admin.query('CREATE TABLE t (id int PRIMARY KEY)');
    await catalog.check();
    const made = await admin.query(`SELECT lsn::text AS lsn FROM pg_create_logical_replication_slot('weir_b0', 'pgoutput')`);
    holder = await ReplicationConnection.connect(server.connectionOptions());
    await holder.stream({ slot: 'weir_b0', publication: 'weir_pub', start: parseLsn(made.rows[0].lsn) });
    await session.currentPosition();
    assert.equal(warnings.filter((w) => w.includes("'weir_b0' is still streamed")).length, 1, warnings.join('\n'));
    const { rows } = await admin.query(`SELECT active_pid, confirmed_flush_lsn::text AS lsn FROM pg_replication_slots WHERE slot_name = 'weir_b0'`);
    assert.equal(rows.length, 1, 'the backfill slot exists');
    assert.ok(compareLsn(parseLsn(rows[0].lsn), parseLsn(made.rows[0].lsn)) > 0, 'made afresh: its position is past the old slot\'s');
  } finally {
    await holder?.close();
    await session.close();
    await catalog.close();
    await admin.end();
    await server.stop();
  }
});

test("the WAL phase drops the reader's backfill slot (its confirmed LSN would hold WAL back); a table added later gets one for its chunks, dropped when released", async () => {
  const server = await startPostgres();
  const admin = new pg.Client(server.connectionOptions());
  await admin.connect();
  const dialect = new PostgresDialect({ ...server.connectionOptions(), tables: ['public.t', 'public.u'], slotName: 'weir', publicationName: 'weir_pub', warn: () => {} });
  const catalog = await dialect.connectCatalog();
  const session = await dialect.connectReader(0, 1);
  const slots = async () => (await admin.query('SELECT slot_name FROM pg_replication_slots ORDER BY 1')).rows.map((r) => r.slot_name as string);
  const split = (table: string): SnapshotSplit => ({ kind: 'snapshot', id: `public.${table}#0`, db: 'public', table, keyColumn: 'id', keyKind: 'integer', index: 0, start: null, end: null });
  try {
    await admin.query('CREATE TABLE t (id int PRIMARY KEY, v int)');
    await admin.query('INSERT INTO t SELECT g, 0 FROM generate_series(1, 100) g');
    await catalog.check();
    const change = { beforeSelect: () => Promise.resolve(), afterSelect: async () => void (await admin.query('UPDATE t SET v = v + 1 WHERE id = 5')), afterHigh: () => Promise.resolve() };
    const first = await readChunkWith(session, split('t'), change);
    assert.equal(first.merged, 1, 'the chunk merged the change made while it was read');
    assert.deepEqual(await slots(), ['weir', 'weir_b0']);
    const log = await session.openLog(first.high);
    assert.deepEqual(await slots(), ['weir'], 'the WAL phase dropped the backfill slot');
    await admin.query('CREATE TABLE u (id int PRIMARY KEY, v int)');
    await admin.query('INSERT INTO u SELECT g, 0 FROM generate_series(1, 10) g');
    const found = (await catalog.discoverTables!()).find((x) => x.table === 'u')!;
    await catalog.capture!(found); // into the publication, as the log reader does with an added table
    const added = await readChunkWith(session, split('u'), { ...change, afterSelect: async () => void (await admin.query('UPDATE u SET v = 7 WHERE id = 3')) });
    assert.equal(added.merged, 1);
    assert.equal(Array.from({ length: added.rows.length }, (_, i) => added.rows.at(i)!).find((r) => r.id === 3)?.v, 7, "the added table's chunk holds the change merged");
    assert.deepEqual(await slots(), ['weir', 'weir_b0'], 'an added table read its chunk through a backfill slot made again');
    await session.releaseChunkReads!();
    assert.deepEqual(await slots(), ['weir'], 'released once no added table is pending');
    await log.close();
  } finally {
    await session.close().catch(() => {});
    await catalog.close();
    await admin.end();
    await server.stop();
  }
});
