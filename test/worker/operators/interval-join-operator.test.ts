// The interval join operator on its own (Flink's IntervalJoinOperator tests): pairs within the
// bounds, output timestamps, late records, and buffers removed by their cleanup timers once the
// watermark passes them.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { OutputTag, type ProcessJoinFunction } from '../../../src/index.ts';
import { IntervalJoinOperator } from '../../../src/worker/operators/interval-join-operator.ts';
import { IntervalJoinError } from '../../../src/worker/operators/interval-join-error.ts';
import { OperatorHarness } from '../../fixtures/operator-harness.ts';

interface Rec {
  readonly k: string;
  readonly id: string;
}

const pairs: ProcessJoinFunction<Rec, Rec, string> = {
  processElement: (l, r, ctx, out) => out.collect(`${l.id}+${r.id}@${ctx.leftTimestamp()},${ctx.rightTimestamp()}`),
};

async function harness(lowerMs: number, upperMs: number, late: [OutputTag<unknown>?, OutputTag<unknown>?] = []): Promise<OperatorHarness> {
  const op = new IntervalJoinOperator({
    kind: 'interval-join',
    fn: pairs as ProcessJoinFunction<unknown, unknown, unknown>,
    keySelectors: [(r) => (r as Rec).k, (r) => (r as Rec).k],
    lowerMs,
    upperMs,
    lateTags: [late[0], late[1]],
    definedAt: 'test',
  });
  const h = new OperatorHarness(op, { sideOutputs: late.filter((t) => t !== undefined).map((t) => t!.id) });
  await h.open();
  return h;
}

const buffered = (h: OperatorHarness) => ({ left: h.backend.keysOf('interval-join-left').length, right: h.backend.keysOf('interval-join-right').length });
const entries = (h: OperatorHarness, side: 'left' | 'right') =>
  [...h.backend.entries<Map<number, unknown[]>>(h.backend.states.get(`interval-join-${side}`)!.descriptor)].flatMap(([, m]) => [...m.keys()]).sort((a, b) => a - b);

describe('interval join operator', () => {
  test('joins each pair of one key within [lower, upper], inclusive, from either side; output carries the larger timestamp', async () => {
    const h = await harness(-2, 3);
    h.element({ k: 'a', id: 'L10' }, 10);
    h.element2({ k: 'a', id: 'R8' }, 8);
    h.element2({ k: 'a', id: 'R7' }, 7);
    h.element2({ k: 'a', id: 'R13' }, 13);
    h.element2({ k: 'a', id: 'R14' }, 14);
    h.element2({ k: 'b', id: 'R10' }, 10);
    h.element({ k: 'a', id: 'L11' }, 11);
    // L10 joins right records at 8..13 (R8 on arrival of R8, R13 on arrival of R13); L11 joins 9..14.
    assert.deepEqual(
      h.output.map((e) => `${String(e.value)} ts=${e.timestamp}`).sort(),
      ['L10+R13@10,13 ts=13', 'L10+R8@10,8 ts=10', 'L11+R13@11,13 ts=13', 'L11+R14@11,14 ts=14'],
    );
  });

  test('buffers go once the watermark passes the last time the other side could still join them', async () => {
    const h = await harness(-2, 3);
    h.element({ k: 'a', id: 'L10' }, 10);
    h.element2({ k: 'b', id: 'R10' }, 10);
    assert.deepEqual(buffered(h), { left: 1, right: 1 });
    // L10 may still meet a right record up to 13; R10 a left record up to 12 (right.ts - lower).
    h.watermark(11);
    assert.deepEqual([entries(h, 'left'), entries(h, 'right')], [[10], [10]]);
    h.watermark(12);
    assert.deepEqual([entries(h, 'left'), entries(h, 'right')], [[10], []]);
    h.watermark(13);
    assert.deepEqual(buffered(h), { left: 0, right: 0 });
  });

  test('with both bounds positive, left records are kept until ts + upper and right ones only until their own time', async () => {
    const h = await harness(5, 10);
    h.element({ k: 'a', id: 'L0' }, 0);
    h.element2({ k: 'a', id: 'R20' }, 20);
    h.watermark(10);
    assert.deepEqual([entries(h, 'left'), entries(h, 'right')], [[], [20]]);
    h.watermark(20);
    assert.deepEqual(buffered(h), { left: 0, right: 0 });
    assert.deepEqual(h.take(), []);
  });

  test('records behind the watermark are late: counted and dropped, or sent to the side output of their side', async () => {
    const h = await harness(-5, 5);
    h.watermark(100);
    h.element({ k: 'a', id: 'L50' }, 50);
    h.element2({ k: 'a', id: 'R99' }, 99);
    assert.equal(h.metrics.numLateRecordsDropped, 2);
    assert.deepEqual(buffered(h), { left: 0, right: 0 });
    const lateLeft = new OutputTag<unknown>('late-left');
    const h2 = await harness(-5, 5, [lateLeft]);
    h2.watermark(100);
    h2.element({ k: 'a', id: 'L50' }, 50);
    assert.deepEqual(h2.sideOutputs.get('late-left')!.map((e) => e.value), [{ k: 'a', id: 'L50' }]);
    assert.equal(h2.metrics.numLateRecordsDropped, 0);
  });

  test('a record without a timestamp fails naming the operator and the input', async () => {
    const h = await harness(0, 1);
    assert.throws(() => h.element2({ k: 'a', id: 'x' }), (e: unknown) => e instanceof IntervalJoinError && e.input === 1 && /right input has no timestamp/.test(e.message));
  });
});
