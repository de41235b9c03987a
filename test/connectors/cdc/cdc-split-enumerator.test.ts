// The CDC enumerator's hand-over from snapshot to log, on a fake dialect: the log split goes out
// only after an aligned checkpoint taken after the last chunk completes (an unaligned one may
// leave snapshot rows in flight, which a log change of the same key must not overtake), and a
// restore between the snapshot's end and that checkpoint waits for a new one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger, type EnumeratorContext } from '../../../src/index.ts';
import { CdcSplitEnumerator, type CdcEnumeratorState } from '../../../src/connectors/cdc/cdc-split-enumerator.ts';
import type { CdcSplit, FinishedChunk, LogSplit, SnapshotSplit } from '../../../src/connectors/cdc/cdc-split.ts';
import { fakeDialect } from './fake-dialect.ts';

type Split = CdcSplit<number>;

function fakeContext() {
  const assigned: Array<{ subtask: number; splits: Split[] }> = [];
  const backlog: boolean[] = [];
  const events: Array<{ subtask: number; kind: string }> = [];
  const ctx: EnumeratorContext<Split> = {
    jobId: 'job',
    parallelism: 2,
    checkpointing: true,
    log: createLogger({ level: 'error', write: () => {} }),
    assignSplits: (subtask, splits) => void assigned.push({ subtask, splits }),
    signalNoMoreSplits: () => {},
    sendEventToReader: (subtask, event) => void events.push({ subtask, kind: (event as { kind: string }).kind }),
    setProcessingBacklog: (b) => void backlog.push(b),
    failJob: (e) => {
      throw e;
    },
  };
  return { ctx, assigned, backlog, events };
}

const OPTIONS = { chunkSize: 5, distributionFactorUpper: 1000, distributionFactorLower: 0.05 };

function finished(split: SnapshotSplit, high: number): FinishedChunk<number> {
  return { id: split.id, db: split.db, table: split.table, index: split.index, start: split.start, end: split.end, high, rows: 5 };
}

/** Cuts the table's two chunks, reports them finished at HIGH 7 and 4: the snapshot is over. */
async function finishSnapshot(e: CdcSplitEnumerator<number, never>, assigned: Array<{ subtask: number; splits: Split[] }>): Promise<void> {
  await e.start();
  await e.handleSplitRequest(0);
  await e.handleSplitRequest(1);
  const [a, b] = assigned.map((x) => x.splits[0] as SnapshotSplit);
  assert.deepEqual([a!.start, a!.end, b!.start, b!.end], [null, 6, 6, null], 'two chunks cut by arithmetic');
  e.handleSourceEvent(0, { kind: 'chunks-finished', chunks: [finished(a!, 7)] });
  e.handleSourceEvent(1, { kind: 'chunks-finished', chunks: [finished(b!, 4)] });
  await e.handleSplitRequest(1);
}

test('the log split waits for an aligned checkpoint after the snapshot: an unaligned one does not open the gate', async () => {
  const { ctx, assigned, backlog, events } = fakeContext();
  const e = new CdcSplitEnumerator(ctx, fakeDialect({ min: 1, max: 10, rows: 10 }), OPTIONS, undefined, true);
  await finishSnapshot(e as never, assigned);
  assert.deepEqual(backlog, [true, false]);
  assert.deepEqual(
    events.filter((x) => x.kind === 'snapshot-finished').map((x) => x.subtask),
    [0, 1],
    'every reader is told the snapshot is over, once its last chunk is reported (it may let go of what chunk reads hold)',
  );
  assert.ok(events.findIndex((x) => x.kind === 'snapshot-finished') > events.findLastIndex((x) => x.kind === 'chunks-acknowledged'), 'after the last chunk is acknowledged');
  assert.equal(e.snapshotState(3)?.phase, 'snapshot-finished');
  e.notifyCheckpointComplete(3, { unaligned: true });
  assert.equal(assigned.length, 2, 'no log split after an unaligned checkpoint');
  assert.equal(e.snapshotState(4)?.gateCheckpoint, 4, 'the next checkpoint is the gate');
  e.notifyCheckpointComplete(4, { unaligned: false });
  assert.equal(assigned.length, 3);
  const log = assigned[2]!;
  assert.equal(log.subtask, 1, 'to the reader that asked');
  const split = log.splits[0] as LogSplit<number>;
  assert.deepEqual([split.kind, split.start, split.maxHigh], ['binlog', 4, 7], 'from the lowest HIGH, dropping up to the highest');
  assert.deepEqual(split.tables[0]!.chunks.map((c) => c.high), [7, 4], 'chunks in key order with their HIGH');
  assert.equal(e.snapshotState(5)?.phase, 'binlog');
});

test('restored between the end of the snapshot and the gate: a new checkpoint after the restore opens it', async () => {
  const first = fakeContext();
  const e1 = new CdcSplitEnumerator(first.ctx, fakeDialect({ min: 1, max: 10, rows: 10 }), OPTIONS, undefined, true);
  await finishSnapshot(e1 as never, first.assigned);
  const state = structuredClone(e1.snapshotState(3)) as CdcEnumeratorState<number>;
  assert.deepEqual([state.phase, state.gateCheckpoint], ['snapshot-finished', 3]);

  const { ctx, assigned, backlog } = fakeContext();
  const e2 = new CdcSplitEnumerator(ctx, fakeDialect({ min: 1, max: 10, rows: 10 }), OPTIONS, state, true);
  await e2.start();
  assert.deepEqual(backlog, [], 'not a backlog any more');
  await e2.handleSplitRequest(0);
  e2.notifyCheckpointComplete(3, { unaligned: false });
  assert.equal(assigned.length, 0, 'the restored checkpoint itself (maybe unaligned) does not open the gate');
  assert.equal(e2.snapshotState(6)?.gateCheckpoint, 6);
  e2.notifyCheckpointComplete(6, { unaligned: false });
  assert.equal((assigned[0]?.splits[0] as LogSplit<number> | undefined)?.start, 4);
});
