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

test('an input that ends while records are held fails naming the held tables, instead of dropping them', async () => {
  const log: string[] = [];
  const h = new OperatorHarness(new CommittingSinkOperator(recordingSink(log) as TwoPhaseCommittingSink<unknown, unknown>));
  await h.open();
  h.element(ddl('a', 'A'));
  h.element(row('a', 'a1'));
  await assert.rejects(async () => h.operator.endInput(), /ended while 1 table\(s\) held records behind a schema change/);
  assert.deepEqual(log, []);
});
