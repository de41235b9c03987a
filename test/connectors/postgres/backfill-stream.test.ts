import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BackfillStream } from '../../../src/connectors/postgres/backfill-stream.ts';
import type { PgCdcLogReader } from '../../../src/connectors/postgres/pg-cdc-log-reader.ts';
import type { Lsn } from '../../../src/connectors/postgres/lsn.ts';

/** A stand-in for a slot's stream: its position, what it was told to confirm, whether it was closed, and a failure to throw. */
function fakeReader(from: Lsn) {
  const r = {
    from,
    position: from,
    confirmed: [] as Lsn[],
    closed: false,
    failure: undefined as Error | undefined,
    next() {
      if (r.failure) throw r.failure;
      return undefined;
    },
    available: () => (r.failure ? Promise.reject(r.failure) : Promise.resolve()),
    confirm: (lsn: Lsn) => void r.confirmed.push(lsn),
    close: async () => void (r.closed = true),
  };
  return r;
}

function harness() {
  const opened: Array<ReturnType<typeof fakeReader>> = [];
  const stream = new BackfillStream(async (from) => {
    const r = fakeReader(from);
    opened.push(r);
    return r as unknown as PgCdcLogReader;
  });
  return { stream, opened };
}

test("chunks' backfills read on one stream from where the last one stopped, each confirming its LOW when done", async () => {
  const { stream, opened } = harness();
  const a = await stream.view(100n);
  opened[0]!.position = 180n;
  await a.close();
  const b = await stream.view(150n);
  assert.equal(b.position, 180n, 'the second backfill starts where the first stopped (past its LOW: those changes were before its SELECT)');
  await b.close();
  const c = await stream.view(400n);
  await c.close();
  assert.equal(opened.length, 1, 'one stream');
  assert.deepEqual(opened[0]!.confirmed, [100n, 150n, 400n]);
  assert.equal(opened[0]!.closed, false, 'kept open for the next chunk');
  await stream.close();
  assert.equal(opened[0]!.closed, true);
});

test('a backfill whose stream failed leaves it closed: the next one opens a new stream at its LOW', async () => {
  const { stream, opened } = harness();
  const a = await stream.view(100n);
  opened[0]!.failure = new Error('connection lost');
  await assert.rejects(a.available(), /connection lost/);
  await a.close();
  assert.equal(opened[0]!.closed, true);
  assert.deepEqual(opened[0]!.confirmed, [], 'nothing confirmed from a failed backfill');
  const b = await stream.view(200n);
  assert.equal(opened.length, 2);
  assert.equal(opened[1]!.from, 200n);
  await b.close();
});

test('a LOW before the stream began (changes it never had) opens a new stream there; two backfills at once are refused', async () => {
  const { stream, opened } = harness();
  await (await stream.view(500n)).close();
  const b = await stream.view(300n);
  assert.deepEqual([opened.length, opened[0]!.closed, opened[1]!.from], [2, true, 300n]);
  await assert.rejects(stream.view(600n), /already being read/);
  await b.close();
});
