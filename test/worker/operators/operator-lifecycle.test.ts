// The operator lifecycle as Flink 1.14+ has it: finish() only at a clean end, close() always last.
// A sink's writer is closed by finish() (its data written) and aborted by a close() that comes
// without one (cancellation, failure); a source's reader failure stops counting once close() began.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Sink } from '../../../src/api/sink.ts';
import type { TwoPhaseCommittingSink } from '../../../src/api/two-phase-committing-sink.ts';
import { CommittingSinkOperator } from '../../../src/worker/operators/committing-sink-operator.ts';
import { SinkOperator } from '../../../src/worker/operators/sink-operator.ts';
import type { OperatorContext } from '../../../src/worker/operators/stream-operator.ts';
import { CLOSING, READING } from '../../../src/worker/operators/source-phase.ts';

/** Just what the sink operators read of their context on a fresh start. */
const context = { subtaskIndex: 0, parallelism: 1, operatorState: { isRestored: false, restoredValues: () => [] } } as unknown as OperatorContext;

function writerCalls() {
  const calls: string[] = [];
  const writer = { write: (v: unknown) => void calls.push(`write ${String(v)}`), close: () => void calls.push('close'), abort: () => void calls.push('abort') };
  return { calls, writer };
}

describe('sink operators', () => {
  test('finish() closes the writer and the close() after it aborts nothing', async () => {
    const { calls, writer } = writerCalls();
    const op = new SinkOperator({ createWriter: () => writer } as unknown as Sink<unknown, unknown>);
    await op.open(context);
    op.processElement(1);
    await op.finish();
    await op.close();
    assert.deepEqual(calls, ['write 1', 'close']);
  });

  test('close() without finish() (cancellation, failure) aborts the writer', async () => {
    const { calls, writer } = writerCalls();
    const op = new SinkOperator({ createWriter: () => writer } as unknown as Sink<unknown, unknown>);
    await op.open(context);
    await op.close();
    assert.deepEqual(calls, ['abort']);
  });

  test('a committing sink commits its final input in finish(); close() alone commits nothing and aborts', async () => {
    for (const finished of [true, false]) {
      const { calls, writer } = writerCalls();
      const committed: unknown[] = [];
      const sink = {
        createWriter: () => ({ ...writer, prepareCommit: () => ['txn-1'] }),
        createCommitter: () => ({ commit: (c: unknown[]) => void committed.push(...c) }),
      } as unknown as TwoPhaseCommittingSink<unknown, unknown>;
      const op = new CommittingSinkOperator(sink);
      await op.open(context);
      await op.endInput();
      if (finished) await op.finish();
      await op.close();
      assert.deepEqual(committed, finished ? ['txn-1'] : []);
      assert.deepEqual(calls, [finished ? 'close' : 'abort']);
    }
  });
});

describe('source phases', () => {
  test('a reader failure fails the task while reading, and not once close() has begun', () => {
    const failed: unknown[] = [];
    READING.readerFailed(new Error('broken'), (e) => failed.push(e));
    CLOSING.readerFailed(new Error('closed on purpose'), (e) => failed.push(e));
    assert.deepEqual(failed.map((e) => (e as Error).message), ['broken']);
  });
});
