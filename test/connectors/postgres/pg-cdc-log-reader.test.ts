import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PgCdcLogReader, type PgLogSource } from '../../../src/connectors/postgres/pg-cdc-log-reader.ts';
import type { LogEvent } from '../../../src/connectors/postgres/pg-log-reader.ts';
import type { PgChangeRecord } from '../../../src/connectors/postgres/pg-change-record.ts';
import type { CdcLogEvent } from '../../../src/connectors/cdc/cdc-dialect.ts';

/** A scripted slot stream: events are fed by the test; acknowledgements are recorded. */
class FakeLog implements PgLogSource {
  position = 100n;
  inTransaction = false;
  readonly acks: bigint[] = [];
  #queue: LogEvent[] = [];
  #waiter: (() => void) | undefined;
  feed(...events: LogEvent[]): void {
    this.#queue.push(...events);
    this.#waiter?.();
  }
  async read(): Promise<LogEvent> {
    while (this.#queue.length === 0) await new Promise<void>((r) => (this.#waiter = r));
    const e = this.#queue.shift()!;
    if (e.kind === 'commit') this.position = e.endLsn;
    if (e.kind === 'keepalive') this.position = e.walEnd > this.position ? e.walEnd : this.position;
    this.inTransaction = e.kind === 'change' || e.kind === 'begin';
    return e;
  }
  acknowledge(lsn: bigint): void {
    this.acks.push(lsn);
  }
  async close(): Promise<void> {}
}

const change = (commitLsn: bigint, table = 'a'): LogEvent => ({
  kind: 'change',
  commitLsn,
  record: { op: 'c', before: null, after: { id: 1 }, table: `public.${table}`, source: { db: 'd', schema: 'public', table, lsn: '', changeLsn: '', index: 0, txId: 1, ts: 5, snapshot: false } } as PgChangeRecord,
});

async function take(r: PgCdcLogReader, n: number): Promise<CdcLogEvent<bigint>[]> {
  const out: CdcLogEvent<bigint>[] = [];
  while (out.length < n) {
    const e = r.next();
    if (e) out.push(e);
    else await r.available();
  }
  return out;
}

/** Lets the reader's pump run. */
const settle = () => new Promise((r) => setImmediate(r));

test('rows of included tables become rows events at their commit LSN, commits boundaries; others are skipped but their commits still come', async () => {
  const log = new FakeLog();
  const r = new PgCdcLogReader(log, { include: (_db, t) => t === 'a', confirmDelay: 3, warn: () => {} });
  log.feed(change(200n), change(200n, 'b'), { kind: 'commit', commitLsn: 200n, endLsn: 210n });
  const [rows, boundary] = await take(r, 2);
  assert.equal(rows!.type, 'rows');
  assert.deepEqual(rows!.type === 'rows' && [rows.op, rows.table, rows.at, rows.txnStart, rows.ts], ['c', 'a', 200n, 200n, 5]);
  assert.deepEqual(boundary, { type: 'boundary', next: 210n });
  assert.equal(r.position, 210n);
  await r.close();
});

test('the slot is confirmed only on completed checkpoints, the given number of checkpoints late, never backwards', async () => {
  const log = new FakeLog();
  const r = new PgCdcLogReader(log, { include: () => true, confirmDelay: 2, warn: () => {} });
  r.checkpointComplete(300n);
  r.checkpointComplete(400n);
  assert.deepEqual(log.acks, [], 'two checkpoints: nothing confirmed yet');
  r.checkpointComplete(500n);
  assert.deepEqual(log.acks, [300n]);
  r.checkpointComplete(250n); // an older position: confirming it would move the slot back
  r.checkpointComplete(600n);
  assert.deepEqual(log.acks, [300n, 400n, 500n]);
  r.checkpointComplete(700n);
  assert.deepEqual(log.acks, [300n, 400n, 500n], '250 comes due but is behind 500: not sent');
  await r.close();
});

test("with nothing captured since the confirmed LSN, keepalives confirm the server's WAL end; a captured change in between stops that until a checkpoint covers it", async () => {
  const log = new FakeLog();
  const r = new PgCdcLogReader(log, { include: () => true, confirmDelay: 0, warn: () => {} });
  log.feed({ kind: 'keepalive', walEnd: 150n });
  await settle();
  assert.deepEqual(log.acks, [], 'no checkpoint yet: nothing is known safe');
  r.checkpointComplete(150n);
  assert.deepEqual(log.acks, [150n]);
  log.feed({ kind: 'keepalive', walEnd: 900n });
  await settle();
  assert.deepEqual(log.acks, [150n, 900n], 'idle: the WAL end is confirmed');
  log.feed(change(1000n), { kind: 'commit', commitLsn: 1000n, endLsn: 1010n }, { kind: 'keepalive', walEnd: 2000n });
  await take(r, 2);
  await settle();
  assert.deepEqual(log.acks, [150n, 900n], 'a change after the confirmed LSN is in flight: keepalives confirm nothing');
  r.checkpointComplete(1010n);
  log.feed({ kind: 'keepalive', walEnd: 3000n });
  await settle();
  assert.deepEqual(log.acks, [150n, 900n, 1010n, 3000n]);
  await r.close();
});

test('a backfill confirms nothing on checkpoints and its LOW on close', async () => {
  const log = new FakeLog();
  const r = new PgCdcLogReader(log, { include: () => true, confirmDelay: null, confirmOnClose: 120n, warn: () => {} });
  r.checkpointComplete(500n);
  log.feed({ kind: 'keepalive', walEnd: 900n });
  await settle();
  assert.deepEqual(log.acks, []);
  assert.equal(r.position, 100n, 'the position moves only as the events before it are taken');
  assert.equal(r.next(), undefined);
  assert.equal(r.position, 900n, 'a keepalive between transactions moves the position');
  await r.close();
  assert.deepEqual(log.acks, [120n]);
});

test("a transaction's Begin moves the position to its commit LSN before its rows are given, so a backfill reading while position < HIGH stops before a transaction committed at or after HIGH", async () => {
  const log = new FakeLog();
  const r = new PgCdcLogReader(log, { include: () => true, confirmDelay: null, warn: () => {} });
  log.feed({ kind: 'begin', finalLsn: 300n }, change(300n), { kind: 'commit', commitLsn: 300n, endLsn: 310n }, { kind: 'begin', finalLsn: 500n }, change(500n));
  await settle();
  const high = 400n;
  const taken: CdcLogEvent<bigint>[] = [];
  while (r.position < high) {
    const e = r.next();
    if (e) taken.push(e);
    else await r.available();
  }
  assert.deepEqual(taken.map((e) => (e.type === 'rows' ? `rows@${e.at}` : `boundary->${e.next}`)), ['rows@300', 'boundary->310']);
  assert.equal(r.position, 500n);
  await r.close();
});
