// The enumerator restored in the snapshot phase with tables added later on and other patterns than
// the run that took the snapshot: a table no longer matching leaves its state (plan, chunks handed
// out, chunks finished) with a log line, and reports of its chunks change nothing; a matching table
// the state lacks is published and planned, and its chunks go out with the others'. With the option
// off the state is kept as it was.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger, type EnumeratorContext } from '../../../src/index.ts';
import { CdcSplitEnumerator, type CdcEnumeratorState } from '../../../src/connectors/cdc/cdc-split-enumerator.ts';
import type { CdcCatalog, CdcDialect, CdcTable } from '../../../src/connectors/cdc/cdc-dialect.ts';
import type { CdcSplit, SnapshotSplit } from '../../../src/connectors/cdc/cdc-split.ts';
import type { CdcRecordSource } from '../../../src/connectors/cdc/change-record.ts';
import type { TablePlan } from '../../../src/connectors/cdc/chunk-splitter.ts';

type Split = CdcSplit<number>;
const OPTIONS = { chunkSize: 5, distributionFactorUpper: 1000, distributionFactorLower: 0.05 };
const table = (name: string): CdcTable => ({ db: 'd', table: name, keyColumn: 'id', keyKind: 'integer' });

function context() {
  const assigned: Array<{ subtask: number; splits: Split[] }> = [];
  const lines: string[] = [];
  const ctx: EnumeratorContext<Split> = {
    jobId: 'job',
    parallelism: 2,
    checkpointing: true,
    log: createLogger({ level: 'info', write: (l) => void lines.push(l) }),
    assignSplits: (subtask, splits) => void assigned.push({ subtask, splits }),
    signalNoMoreSplits: () => {},
    sendEventToReader: () => {},
    setProcessingBacklog: () => {},
    failJob: (e) => {
      throw e;
    },
  };
  return { ctx, assigned, lines };
}

/** Tables t, old, new exist with keys 1..10; the patterns now match `matching`. */
function dialect(matching: string[], scanNewlyAddedTables: boolean, captured: string[], discovered: Promise<void> = Promise.resolve()): CdcDialect<number, CdcRecordSource> {
  const catalog: CdcCatalog<number> = {
    check: async () => {},
    startup: async () => ({ snapshot: true }),
    listTables: async () => matching.map(table),
    discoverTables: async () => {
      await discovered;
      return matching.map(table);
    },
    capture: async (t) => void captured.push(`${t.db}.${t.table}`),
    keyRange: async () => ({ min: 1, max: 10, approxRows: 10 }),
    keyAtOffset: async () => null,
    keyAfter: async () => null,
    close: async () => {},
  };
  return {
    logName: 'the fake log',
    logMetricPrefix: 'fake',
    scanNewlyAddedTables,
    chunking: OPTIONS,
    captures: (db, t) => db === 'd' && matching.includes(t),
    comparePositions: (a, b) => a - b,
    formatPosition: (p) => `#${p}`,
    connectCatalog: async () => catalog,
    connectReader: async () => {
      throw new Error('no reader in this test');
    },
  };
}

const plan = (name: string, nextIndex: number, done: boolean): TablePlan => ({ db: 'd', table: name, keyColumn: 'id', keyKind: 'integer', approxRows: 10, min: 1, max: 10, step: '5', nextStart: done ? null : 6, nextIndex, done });
const split = (name: string, index: number): SnapshotSplit => ({ kind: 'snapshot', id: `d.${name}:${index}`, db: 'd', table: name, keyColumn: 'id', keyKind: 'integer', index, start: index === 0 ? null : 6, end: index === 0 ? 6 : null });

/** A snapshot of the run before: t half cut (chunk 0 finished), old fully cut (chunk 0 finished, chunk 1 out). */
function restored(): CdcEnumeratorState<number> {
  const done = (name: string) => ({ id: `d.${name}:0`, db: 'd', table: name, index: 0, start: null, end: 6, high: 3, rows: 5 });
  return {
    version: 1,
    phase: 'snapshot',
    gateCheckpoint: null,
    tables: [plan('t', 1, false), plan('old', 2, true)],
    assigned: { 'd.old:1': split('old', 1) },
    finished: [done('t'), done('old')],
    binlogStart: null,
    fromTimestamp: null,
    binlogAssigned: false,
    snapshotStartedAt: 0,
    snapshotFinishedAt: null,
    rowsRead: 10,
    chunksFinished: 2,
  };
}

test('restored in the snapshot phase with other patterns: a table no longer matching leaves the state, an added one is published and snapshotted with the others', async () => {
  const { ctx, assigned, lines } = context();
  const published: string[] = [];
  const e = new CdcSplitEnumerator(ctx, dialect(['t', 'new'], true, published), OPTIONS, restored(), true);
  await e.start();
  const s = e.snapshotState(5)!;
  assert.deepEqual(s.tables.map((t) => t.table), ['t', 'new']);
  assert.deepEqual(Object.keys(s.assigned), [], 'the chunk of old handed out is no longer waited for');
  assert.deepEqual(s.finished.map((c) => c.id), ['d.t:0']);
  assert.deepEqual([s.rowsRead, s.chunksFinished], [5, 1]);
  assert.deepEqual(published, ['d.new'], 'the added table is published before it is snapshotted');
  assert.ok(lines.some((l) => l.includes('table d.old no longer matches the source\'s patterns: dropped from the state')), lines.join('\n'));
  assert.ok(lines.some((l) => l.includes('table d.new matches the source\'s patterns and was not in the restored snapshot')), lines.join('\n'));

  // A restored reader's report of old's chunk changes nothing.
  e.handleSourceEvent(0, { kind: 'chunks-finished', chunks: [{ id: 'd.old:1', db: 'd', table: 'old', index: 1, start: 6, end: null, high: 4, rows: 5 }] });
  assert.deepEqual(e.snapshotState(6)!.finished.map((c) => c.id), ['d.t:0']);

  for (let i = 0; i < 4; i++) await e.handleSplitRequest(i % 2);
  const out = assigned.flatMap((a) => a.splits as SnapshotSplit[]).map((x) => `${x.table}:${x.index}`);
  assert.deepEqual(out, ['t:1', 'new:0', 'new:1'], 'the rest of t, then new');
  for (const x of assigned.flatMap((a) => a.splits as SnapshotSplit[])) e.handleSourceEvent(0, { kind: 'chunks-finished', chunks: [{ id: x.id, db: x.db, table: x.table, index: x.index, start: x.start, end: x.end, high: 9, rows: 5 }] });
  assert.equal(e.snapshotState(7)!.phase, 'snapshot-finished', 'the snapshot ends without old');
  e.notifyCheckpointComplete(7, { unaligned: false });
  const log = assigned.at(-1)!.splits[0]!;
  assert.ok(log.kind === 'binlog');
  assert.deepEqual(log.tables.map((t) => `${t.table}:${t.chunks.length}`), ['t:2', 'new:2']);
  assert.deepEqual(log.captured, ['d.t', 'd.new']);
});

test('a restored reader\'s report that comes while the enumerator looks at the tables is kept', async () => {
  const { ctx } = context();
  let discover!: () => void;
  const e = new CdcSplitEnumerator(ctx, dialect(['t', 'new'], true, [], new Promise((resolve) => (discover = resolve))), OPTIONS, restored(), true);
  const started = e.start();
  await new Promise((resolve) => setImmediate(resolve));
  // t's second chunk, read by the run before and reported again by its restored reader.
  e.handleSourceEvent(0, { kind: 'chunks-finished', chunks: [{ id: 'd.t:1', db: 'd', table: 't', index: 1, start: 6, end: null, high: 8, rows: 5 }] });
  discover();
  await started;
  assert.deepEqual(e.snapshotState(5)!.finished.map((c) => c.id), ['d.t:0', 'd.t:1'], 'the report is not lost to the reconciled state');
});

test('restored in the snapshot phase without tables added later: the state is kept as it was', async () => {
  const { ctx } = context();
  const published: string[] = [];
  const e = new CdcSplitEnumerator(ctx, dialect(['t', 'new'], false, published), OPTIONS, restored(), true);
  await e.start();
  const s = e.snapshotState(5)!;
  assert.deepEqual(s.tables.map((t) => t.table), ['t', 'old']);
  assert.deepEqual(Object.keys(s.assigned), ['d.old:1']);
  assert.deepEqual(published, []);
});

test('a first start with tables added later on publishes each table before it is planned', async () => {
  const { ctx } = context();
  const published: string[] = [];
  const e = new CdcSplitEnumerator(ctx, dialect(['t', 'new'], true, published), OPTIONS, undefined, true);
  await e.start();
  assert.deepEqual(published, ['d.t', 'd.new']);
});
