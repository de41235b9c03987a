// The log follower's rules for tables added later, on a scripted log with numbers as positions:
// a table it does not list is found by its first change and its changes dropped until their chunk
// is read; after a chunk, changes up to its HIGH are dropped and later ones emitted; the state
// lists the tables and the cutting; on resume, tables the patterns no longer match leave it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CdcLogEvent, CdcLogReader } from '../../../src/connectors/cdc/cdc-dialect.ts';
import type { LogSplit } from '../../../src/connectors/cdc/cdc-split.ts';
import type { CdcChangeRecord, CdcRecordSource } from '../../../src/connectors/cdc/change-record.ts';
import type { TablePlan } from '../../../src/connectors/cdc/chunk-splitter.ts';
import { LogFollower } from '../../../src/connectors/cdc/log-follower.ts';
import { TableFigures } from '../../../src/connectors/cdc/table-figures.ts';

type Src = CdcRecordSource & { at: number };

function scripted(events: CdcLogEvent<number, Src>[]): CdcLogReader<number, Src> {
  let position = 0;
  return {
    next: () => {
      const ev = events.shift();
      if (ev) position = ev.type === 'boundary' ? ev.next : ev.at;
      return ev;
    },
    available: () => new Promise(() => {}),
    get position() {
      return position;
    },
    close: async () => {},
  };
}

const insert = (table: string, id: number, at: number): CdcLogEvent<number, Src> => ({
  type: 'rows',
  op: 'c',
  db: 'app',
  table,
  rows: [{ before: null, after: { id } }],
  txnStart: at,
  at,
  ts: 0,
  source: () => ({ db: 'app', table, ts: 0, snapshot: false, at }),
});
const commit = (at: number): CdcLogEvent<number, Src> => ({ type: 'boundary', next: at });

function follower(events: CdcLogEvent<number, Src>[], split: Partial<LogSplit<number>> = {}) {
  const lines: string[] = [];
  const base: LogSplit<number> = { kind: 'binlog', id: 'binlog', start: 0, skipEvents: 0, tables: [], maxHigh: null, captured: ['app.old'], ...split };
  const f = new LogFollower(scripted(events), base, {
    comparePositions: (a: number, b: number) => a - b,
    formatPosition: (p: number) => `@${p}`,
    includeSchemaChanges: false,
    addTables: true,
    info: (m: string) => void lines.push(m),
    warn: (m: string) => void lines.push(m),
    figures: new TableFigures(),
  });
  const out: CdcChangeRecord<Src>[] = [];
  const drain = () => {
    while (f.poll({ collect: (r: CdcChangeRecord<Src>) => void out.push(r) }) === 'more');
  };
  return { f, out, lines, drain };
}

const plan = (nextIndex: number, nextStart: number | null, done: boolean): TablePlan => ({ db: 'app', table: 'fresh', keyColumn: 'id', keyKind: 'integer', approxRows: 10, min: 1, max: 20, step: '10', nextStart, nextIndex, done });

test('a table the split does not list: found by its first change, its changes dropped until their chunk, then those after the HIGH emitted', () => {
  const events = [insert('old', 1, 1), insert('fresh', 5, 2), commit(3), insert('old', 2, 4), insert('fresh', 15, 5), commit(6)];
  const { f, out, lines, drain } = follower(events);
  drain();
  assert.deepEqual(out.map((r) => `${r.source.table} ${String(r.after!['id'])}`), ['old 1', 'old 2'], 'the new table\'s changes are dropped: their chunks come later');
  assert.ok(lines.some((l) => l.startsWith('table app.fresh has changes at @2 and was not snapshotted')));
  assert.deepEqual(f.nextAdding, { db: 'app', table: 'fresh', plan: null });
  // Chunk [-inf, 11) read with HIGH 8: a change of its range at 7 is in it, one at 9 is not.
  f.chunkRead(plan(1, 11, false), { start: null, end: 11, high: 8 });
  const later = follower([insert('fresh', 3, 7), insert('fresh', 4, 9), insert('fresh', 12, 10), commit(11)], f.snapshot());
  later.drain();
  assert.deepEqual(later.out.map((r) => String(r.after!['id'])), ['4'], 'after the HIGH only; the key of the chunk still to come (12) is dropped');
  const state = f.snapshot();
  assert.deepEqual(state.captured, ['app.old', 'app.fresh']);
  assert.equal(state.adding?.[0]?.plan?.nextIndex, 1);
  assert.equal(state.maxHigh, 8);
  // The last chunk: the table is followed; the state no longer lists it as being added.
  f.chunkRead(plan(2, null, true), { start: 11, end: null, high: 12 });
  assert.equal(f.nextAdding, undefined);
  assert.ok(lines.some((l) => l.startsWith('table app.fresh is snapshotted (2 chunk(s))')));
});

test('on resume: a listed table the patterns no longer match leaves the state with a log line; a matching unlisted one is snapshotted', () => {
  const { f, lines } = follower([], { captured: ['app.old', 'app.gone'], tables: [{ db: 'app', table: 'gone', keyColumn: 'id', keyKind: 'integer', chunks: [{ start: null, end: null, high: 5 }] }], maxHigh: 5 });
  f.reconcile([{ db: 'app', table: 'old' }, { db: 'app', table: 'extra' }], (_db, table) => table !== 'gone', true);
  assert.ok(lines.some((l) => l.startsWith("table app.gone no longer matches the source's patterns: dropped from the state")));
  const state = f.snapshot();
  assert.deepEqual(state.captured, ['app.old', 'app.extra']);
  assert.deepEqual(state.tables, []);
  assert.deepEqual(state.adding, [{ db: 'app', table: 'extra', plan: null }]);
});

test('a split without a list (a checkpoint from before the option) takes the tables matching now as snapshotted', () => {
  const { f, lines } = follower([], { captured: undefined });
  f.reconcile([{ db: 'app', table: 'old' }, { db: 'app', table: 'other' }], () => true, false);
  assert.deepEqual(f.snapshot().captured, ['app.old', 'app.other']);
  assert.equal(f.nextAdding, undefined);
  assert.ok(lines.some((l) => l.includes('taken as snapshotted')));
});

test('the next added chunk merges from the first change of a table being snapshotted dropped since the last chunk (its binlog may precede its engine commit)', () => {
  const events = [insert('old', 1, 1), insert('fresh', 5, 2), commit(3), insert('fresh', 15, 4), commit(5), insert('old', 2, 6), commit(7)];
  const { f, drain } = follower(events);
  assert.equal(f.takeAddingDropsFrom(), undefined, 'nothing dropped yet');
  drain();
  assert.equal(f.takeAddingDropsFrom(), 2, 'the transaction of the first dropped change');
  assert.equal(f.takeAddingDropsFrom(), undefined, 'taken: the next chunk starts afresh');
  f.chunkRead(plan(1, 11, false), { start: null, end: 11, high: 8 });
  const later = follower([insert('fresh', 3, 7), insert('fresh', 12, 10), commit(11), insert('fresh', 13, 12), commit(13)], f.snapshot());
  later.drain();
  assert.equal(later.f.takeAddingDropsFrom(), 7, 'the change in the read chunk up to its HIGH, and the one of the chunk to come');
});
