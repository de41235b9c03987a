// The chunk read's LOW/HIGH merge on a fake dialect: the changes of the chunk's key range logged
// between LOW and HIGH are replayed onto the rows the SELECT saw (inserts added, deletes removed,
// a key moved out of the range removed, into it added); other ranges' and tables' changes are not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CdcLogEvent, CdcLogReader, CdcReaderSession } from '../../../src/connectors/cdc/cdc-dialect.ts';
import type { SnapshotSplit } from '../../../src/connectors/cdc/cdc-split.ts';
import type { CdcRecordSource, RowImage } from '../../../src/connectors/cdc/change-record.ts';
import { ChunkNotStableError, readChunk, type ChunkRows } from '../../../src/connectors/cdc/snapshot-chunk-reader.ts';

const SPLIT: SnapshotSplit = { kind: 'snapshot', id: 'd.t#1', db: 'd', table: 't', keyColumn: 'id', keyKind: 'integer', index: 1, start: 10, end: 20 };

function rows(op: 'c' | 'u' | 'd', at: number, before: RowImage | null, after: RowImage | null, table = 't'): CdcLogEvent<number> {
  return { type: 'rows', op, db: 'd', table, rows: [{ before, after }], txnStart: at, at, ts: 0, source: () => ({ table, ts: 0, snapshot: false }) };
}

/** A session whose log holds `log` (event i at position i + 1) and whose end moves by `advance` per watermark. */
function session(selected: RowImage[], log: CdcLogEvent<number>[], identity: string[], positions: number[]): CdcReaderSession<number, CdcRecordSource> {
  let watermark = 0;
  return {
    currentPosition: async () => positions[Math.min(watermark++, positions.length - 1)]!,
    rowIdentity: async () => identity,
    selectChunk: async () => selected.map((r) => ({ ...r })),
    openLog: async (from): Promise<CdcLogReader<number>> => {
      let i = from;
      return {
        next: () => (i < log.length ? log[i++] : undefined),
        available: () => new Promise(() => {}),
        get position() {
          return i;
        },
        close: async () => {},
      };
    },
    snapshotSource: () => ({ table: 't', ts: 0, snapshot: true }),
    close: async () => {},
  };
}

const compare = (a: number, b: number) => a - b;
const byId = (r: ChunkRows) => Array.from({ length: r.length }, (_, i) => r.at(i)!).sort((a, b) => (a['id'] as number) - (b['id'] as number));

test('the changes of the range between LOW and HIGH are merged into the rows read', async () => {
  const log = [
    rows('c', 1, null, { id: 12, v: 'new' }),
    rows('d', 2, { id: 11, v: 'a' }, null),
    rows('u', 3, { id: 13, v: 'b' }, { id: 25, v: 'b' }), // moved out of the range
    rows('u', 4, { id: 30, v: 'x' }, { id: 14, v: 'x' }), // moved into it
    rows('c', 5, null, { id: 5, v: 'other range' }),
    rows('c', 6, null, { id: 15, v: 'other table' }, 'u'),
    rows('u', 7, { id: 16, v: 'c' }, { id: 16, v: 'after HIGH' }),
  ];
  const s = session([{ id: 11, v: 'a' }, { id: 13, v: 'b' }, { id: 16, v: 'c' }], log, ['id'], [0, 6]);
  const r = await readChunk({ session: s, comparePositions: compare, logName: 'the fake log' }, SPLIT);
  assert.equal(r.high, 6);
  assert.equal(r.merged, 4);
  assert.deepEqual(byId(r.rows), [{ id: 12, v: 'new' }, { id: 14, v: 'x' }, { id: 16, v: 'c' }]);
});

test("a read view older than LOW (a transaction logged before LOW, committed in the engine after the SELECT began): its changes are replayed from the read view's position", async () => {
  // The transaction at position 2 is in the log before LOW (3) but not in the rows the SELECT saw.
  const log = [rows('c', 1, null, { id: 11, v: 'seen' }), rows('u', 2, { id: 12, v: 'old' }, { id: 12, v: 'late commit' }), rows('c', 3, null, { id: 13, v: 'after LOW' })];
  const read = () => session([{ id: 11, v: 'seen' }, { id: 12, v: 'old' }], log, ['id'], [3, 3]);
  const without = await readChunk({ session: read(), comparePositions: compare, logName: 'the fake log' }, SPLIT);
  assert.deepEqual(byId(without.rows), [{ id: 11, v: 'seen' }, { id: 12, v: 'old' }], 'from LOW alone the late commit is lost');
  const s = read();
  s.selectedAt = () => 1;
  const r = await readChunk({ session: s, comparePositions: compare, logName: 'the fake log' }, SPLIT);
  assert.deepEqual(byId(r.rows), [{ id: 11, v: 'seen' }, { id: 12, v: 'late commit' }, { id: 13, v: 'after LOW' }]);
});

test('rows a session decodes when asked for: handed on as they are when nothing changed, all decoded to merge changes', async () => {
  let decoded = 0;
  const lazy = (images: RowImage[]): ChunkRows => ({ length: images.length, at: (i) => (decoded++, images[i]) });
  const quiet = session([], [], ['id'], [3, 3]);
  const list = lazy([{ id: 11 }, { id: 12 }]);
  quiet.selectChunkRows = async () => list;
  const r = await readChunk({ session: quiet, comparePositions: compare, logName: 'the fake log' }, SPLIT);
  assert.equal(r.rows, list);
  assert.equal(decoded, 0, 'not decoded by the read');
  const busy = session([], [rows('c', 1, null, { id: 13 })], ['id'], [0, 1]);
  busy.selectChunkRows = async () => lazy([{ id: 11 }, { id: 12 }]);
  assert.deepEqual(byId((await readChunk({ session: busy, comparePositions: compare, logName: 'the fake log' }, SPLIT)).rows), [{ id: 11 }, { id: 12 }, { id: 13 }]);
});

test('no change between LOW and HIGH: the rows as read, the log not opened', async () => {
  const s = session([{ id: 11 }], [], ['id'], [3, 3]);
  s.openLog = () => Promise.reject(new Error('opened'));
  const r = await readChunk({ session: s, comparePositions: compare, logName: 'the fake log' }, SPLIT);
  assert.deepEqual([r.rows, r.high, r.merged], [[{ id: 11 }], 3, 0]);
});

test('a table without a key whose range keeps changing fails after a few reads, naming table, chunk and log', async () => {
  const log = Array.from({ length: 10 }, (_, i) => rows('c', i + 1, null, { id: 15, v: i }));
  const s = session([], log, [], [0, 1, 2, 3, 4, 5, 6]);
  await assert.rejects(
    readChunk({ session: s, comparePositions: compare, logName: 'the fake log' }, SPLIT),
    (e: Error) => e instanceof ChunkNotStableError && e.table === 'd.t' && /chunk 2 \(id in \[10, 20\)\).*the fake log's changes/.test(e.message),
  );
});

/** An update that left `unchanged` out of its after image (PostgreSQL's unchanged TOASTed values). */
function partialUpdate(at: number, before: RowImage | null, after: RowImage, unchanged: string[]): CdcLogEvent<number> {
  return { type: 'rows', op: 'u', db: 'd', table: 't', rows: [{ before, after, unchangedColumns: unchanged }], txnStart: at, at, ts: 0, source: () => ({ table: 't', ts: 0, snapshot: false }) };
}

test('an update that left unchanged columns out takes their values from the row it replaces, as read or as merged so far', async () => {
  const log = [
    partialUpdate(1, null, { id: 11, v: 'a2' }, ['body']), // the SELECT's row has the body
    rows('c', 2, null, { id: 12, v: 'b', body: 'B' }),
    partialUpdate(3, null, { id: 12, v: 'b2' }, ['body']), // inserted in the window: the merged row has it
    partialUpdate(4, { id: 12 }, { id: 13, v: 'b3' }, ['body']), // a key moved inside the chunk: from the row under the old key
  ];
  const s = session([{ id: 11, v: 'a', body: 'A' }], log, ['id'], [0, 4]);
  const r = await readChunk({ session: s, comparePositions: compare, logName: 'the fake log' }, SPLIT);
  assert.deepEqual(byId(r.rows), [{ id: 11, v: 'a2', body: 'A' }, { id: 13, v: 'b3', body: 'B' }]);
});

test('an update that left columns out of a row moved in from outside the chunk: the chunk is read again, and fails after a few reads', async () => {
  // Key 30 is in another chunk: its body is not at hand. The first read sees it; the second read's window is clean.
  const once = [partialUpdate(1, { id: 30 }, { id: 14, v: 'x' }, ['body'])];
  let selects = 0;
  const s = session([], once, ['id'], [0, 1, 1]);
  const select = s.selectChunk;
  s.selectChunk = (split) => (selects++ === 0 ? select(split) : Promise.resolve([{ id: 14, v: 'x', body: 'X' }]));
  const r = await readChunk({ session: s, comparePositions: compare, logName: 'the fake log' }, SPLIT);
  assert.equal(selects, 2, 'read again');
  assert.deepEqual(r.rows, [{ id: 14, v: 'x', body: 'X' }]);

  const always = Array.from({ length: 10 }, (_, i) => partialUpdate(i + 1, { id: 30 + i }, { id: 14, v: i }, ['body']));
  const failing = session([], always, ['id'], [0, 1, 2, 3, 4, 5, 6]);
  await assert.rejects(
    readChunk({ session: failing, comparePositions: compare, logName: 'the fake log' }, SPLIT),
    (e: Error) => e instanceof ChunkNotStableError && /left unchanged columns out of a row the chunk did not hold.*REPLICA IDENTITY FULL/.test(e.message),
  );
});
