// A committing sink with schema changes, through its operator on a harness: a change and its
// table's later records reach the writer only after the checkpoint cut after the change has
// completed and its transaction is committed; other tables are written at once; a restore
// brings the held records back and releases them after the first checkpoint after it.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { TwoPhaseCommittingSink } from '../../../src/api/two-phase-committing-sink.ts';
import { CommittingSinkOperator } from '../../../src/worker/operators/committing-sink-operator.ts';
import { OperatorStateBackend } from '../../../src/state/operator-state-backend.ts';
import { OperatorHarness } from '../../fixtures/operator-harness.ts';

interface Rec {
  readonly table: string;
  readonly id: string;
  readonly ddl?: boolean;
}
const row = (table: string, id: string): Rec => ({ table, id });
const ddl = (table: string, id: string): Rec => ({ table, id, ddl: true });

function recordingSink(log: string[]) {
  let written: string[] = [];
  const sink: TwoPhaseCommittingSink<Rec, string> = {
    schemaChanges: { tableOf: (r) => r.table, holdsBack: (r) => r.ddl === true },
    createWriter: () => ({
      write: (r: Rec) => void (log.push(`write ${r.id}`), written.push(r.id)),
      prepareCommit: (id: number) => {
        const c = [`txn${id}:${written.join(',')}`];
        written = [];
        return c;
      },
    }),
    createCommitter: () => ({ commit: (cs: readonly string[]) => void log.push(...cs.map((c) => `commit ${c}`)) }),
  };
  return sink;
}

async function settle(h: OperatorHarness): Promise<void> {
  for (let i = 0; i < 5; i++) {
    await new Promise((r) => setImmediate(r));
    h.runMails();
  }
}

describe('CommittingSinkOperator with schema changes', () => {
  test('the change waits for the commit of the checkpoint after it; other tables do not wait', async () => {
    const log: string[] = [];
    const h = new OperatorHarness(new CommittingSinkOperator(recordingSink(log) as TwoPhaseCommittingSink<unknown, unknown>));
    await h.open();
    for (const r of [row('a', 'a1'), ddl('a', 'A'), row('a', 'a2'), row('b', 'b1')]) h.element(r);
    h.operator.prepareSnapshot(1, 'checkpoint');
    await h.operator.snapshotAsync(1);
    h.element(row('b', 'b2'));
    h.element(row('a', 'a3'));
    await h.operator.notifyCheckpointComplete(1);
    await settle(h);
    assert.deepEqual(log, ['write a1', 'write b1', 'write b2', 'commit txn1:a1,b1', 'write A', 'write a2', 'write a3']);
    h.element(row('a', 'a4'));
    assert.equal(log.at(-1), 'write a4');
  });

  test('held records are in the checkpoint: a restore writes them after the first checkpoint after it', async () => {
    const log: string[] = [];
    const h = new OperatorHarness(new CommittingSinkOperator(recordingSink(log) as TwoPhaseCommittingSink<unknown, unknown>));
    await h.open();
    for (const r of [row('a', 'a1'), ddl('a', 'A'), row('a', 'a2')]) h.element(r);
    h.operator.prepareSnapshot(4, 'checkpoint');
    const state = await h.operator.snapshotAsync(4);
    assert.ok(state);
    const restoredLog: string[] = [];
    const r = new OperatorHarness(new CommittingSinkOperator(recordingSink(restoredLog) as TwoPhaseCommittingSink<unknown, unknown>), { operatorState: new OperatorStateBackend(state) });
    await r.open();
    assert.deepEqual(restoredLog, ['commit txn4:a1'], 'the restored checkpoint is committed; nothing held is written yet');
    r.element(row('a', 'a3'));
    r.operator.prepareSnapshot(5, 'checkpoint');
    await r.operator.snapshotAsync(5);
    await r.operator.notifyCheckpointComplete(5);
    await settle(r);
    assert.deepEqual(restoredLog, ['commit txn4:a1', 'commit txn5:', 'write A', 'write a2', 'write a3']);
  });
});

describe('CommittingSinkOperator with schema changes at the end of a bounded input', () => {
  test('the final commit writes what is held, each table in order, one change per round, each after the commits before it', async () => {
    const log: string[] = [];
    const h = new OperatorHarness(new CommittingSinkOperator(recordingSink(log) as TwoPhaseCommittingSink<unknown, unknown>));
    await h.open();
    for (const r of [row('a', 'a1'), ddl('a', 'A'), row('a', 'a2'), ddl('a', 'B'), row('a', 'a3'), ddl('b', 'C'), row('b', 'b1')]) h.element(r);
    await h.operator.endInput();
    // The final checkpoint: its cut holds what is held; its completion commits a1 and releases nothing (finish does).
    h.operator.prepareSnapshot(1, 'checkpoint');
    const state = await h.operator.snapshotAsync(1);
    assert.ok(state?.has('_sink-held'), 'the final checkpoint keeps the held records');
    h.operator.notifyCheckpointComplete(1);
    await settle(h);
    assert.deepEqual(log, ['write a1', 'commit txn1:a1']);
    await h.operator.finish();
    assert.deepEqual(log, [
      'write a1',
      'commit txn1:a1',
      `commit txn${Number.MAX_SAFE_INTEGER}:`,
      'write A',
      'write a2',
      'write C',
      'write b1',
      `commit txn${Number.MAX_SAFE_INTEGER - 1}:A,a2,C,b1`,
      'write B',
      'write a3',
      `commit txn${Number.MAX_SAFE_INTEGER - 2}:B,a3`,
    ]);
  });

  test('without checkpoints, the finished input is committed first, then what was held', async () => {
    const log: string[] = [];
    const h = new OperatorHarness(new CommittingSinkOperator(recordingSink(log) as TwoPhaseCommittingSink<unknown, unknown>));
    await h.open();
    for (const r of [row('b', 'b1'), ddl('a', 'A'), row('a', 'a1')]) h.element(r);
    await h.operator.endInput();
    await h.operator.finish();
    assert.deepEqual(log, ['write b1', `commit txn${Number.MAX_SAFE_INTEGER}:b1`, 'write A', 'write a1', `commit txn${Number.MAX_SAFE_INTEGER - 1}:A,a1`]);
  });

  test('a sink with a dead-letter output still fails at the end while records are held (its letters would come after the end of data)', async () => {
    const log: string[] = [];
    const sink = { ...recordingSink(log), deadLetterOutput: { id: 'dead' } } as unknown as TwoPhaseCommittingSink<unknown, unknown>;
    const h = new OperatorHarness(new CommittingSinkOperator(sink));
    await h.open();
    h.element(ddl('a', 'A'));
    h.element(row('a', 'a1'));
    await assert.rejects(async () => h.operator.endInput(), /ended while 1 table\(s\) held records behind a schema change/);
    assert.deepEqual(log, []);
  });
});
