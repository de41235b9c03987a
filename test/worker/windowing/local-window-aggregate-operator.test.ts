// The first phase of a two-phase window aggregation on its own, with a recording context: what it
// sends, with which timestamps, and when (the watermark passing a window, a checkpoint barrier, the
// end of input, its entry bound), and that it sends a record late for its window at once.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RecordTimestamp } from '../../../src/network/record-timestamp.ts';
import type { OperatorContext } from '../../../src/worker/operators/stream-operator.ts';
import { LocalWindowAggregateOperator } from '../../../src/worker/windowing/local-window-aggregate-operator.ts';
import { MissingTimestampError } from '../../../src/worker/windowing/missing-timestamp-error.ts';

interface Rec {
  readonly k: string;
  readonly v: number;
}

const sum = { createAccumulator: () => ({ n: 0, total: 0 }), add: (r: Rec, a: { n: number; total: number }) => ((a.n++, (a.total += r.v)), a), getResult: (a: unknown) => a, merge: (a: never) => a };

function harness(maxEntries = 100) {
  const out: string[] = [];
  const timestamps = new RecordTimestamp();
  const ctx = {
    operatorName: 'local',
    operatorUid: 'local-uid',
    timestamps,
    output: { collect: (p: { key: string; acc: { n: number; total: number } }) => out.push(`${p.key}@${timestamps.current}: n=${p.acc.n} total=${p.acc.total}`) },
    eventTimeOutput: { emitWatermark: (w: number) => out.push(`watermark ${w}`), emitWatermarkStatus: () => {} },
  } as unknown as OperatorContext;
  const op = new LocalWindowAggregateOperator({ size: 10, offset: 0, keySelector: (r) => (r as Rec).k, aggregate: sum as never, maxEntries });
  op.open(ctx);
  const put = (k: string, v: number, ts: number) => {
    timestamps.current = ts;
    op.processElement({ k, v });
  };
  return { op, out, put, timestamps };
}

describe('LocalWindowAggregateOperator', () => {
  test('a window goes out, one accumulator per key with the window\'s last millisecond as its timestamp, before the watermark that passes it', () => {
    const { op, out, put } = harness();
    put('a', 1, 0);
    put('b', 2, 3);
    put('a', 3, 9);
    put('a', 4, 10); // the next window
    op.processWatermark(8);
    assert.deepEqual(out, ['watermark 8'], 'no window has passed');
    op.processWatermark(9);
    assert.deepEqual(out, ['watermark 8', 'a@9: n=2 total=4', 'b@9: n=1 total=2', 'watermark 9']);
    op.processWatermark(100);
    assert.deepEqual(out.slice(4), ['a@19: n=1 total=4', 'watermark 100']);
  });

  test('everything it holds goes out before a checkpoint barrier and at the end of input, so it keeps nothing across either', () => {
    const { op, out, put } = harness();
    put('a', 1, 0);
    put('a', 1, 15);
    op.prepareSnapshot(1, 'checkpoint');
    assert.deepEqual(out, ['a@9: n=1 total=1', 'a@19: n=1 total=1']);
    put('a', 5, 16);
    op.prepareSnapshot(2, 'checkpoint');
    assert.deepEqual(out.slice(2), ['a@19: n=1 total=5'], 'a fresh accumulator after the barrier');
    put('c', 7, 25);
    op.endInput();
    assert.deepEqual(out.slice(3), ['c@29: n=1 total=7']);
    op.prepareSnapshot(3, 'checkpoint');
    assert.equal(out.length, 4, 'nothing left to send');
  });

  test('at maxEntries accumulators it sends them all', () => {
    const { out, put } = harness(3);
    put('a', 1, 0);
    put('b', 1, 0);
    put('a', 1, 0);
    assert.equal(out.length, 0);
    put('c', 1, 12);
    assert.deepEqual(out, ['a@9: n=2 total=2', 'b@9: n=1 total=1', 'c@19: n=1 total=1']);
    put('a', 1, 13);
    assert.equal(out.length, 3, 'counting starts again');
  });

  test('a record whose window the watermark has passed goes out at once, as the window operator would have judged the record itself', () => {
    const { op, out, put, timestamps } = harness();
    op.processWatermark(20);
    timestamps.current = 77;
    put('late', 3, 5);
    assert.deepEqual(out, ['watermark 20', 'late@9: n=1 total=3']);
    assert.equal(timestamps.current, 5, 'the record\'s own timestamp is back for the rest of the chain');
  });

  test('a record without a timestamp fails with the operator and the record', () => {
    const { op, timestamps } = harness();
    timestamps.current = -Infinity;
    assert.throws(() => op.processElement({ k: 'a', v: 1 }), (e: unknown) => e instanceof MissingTimestampError && e.operator === 'local' && e.uid === 'local-uid');
  });
});
