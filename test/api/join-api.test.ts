// The join builders refuse bad input when the job is built, naming the operator and the line.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { StreamConnectionError, StreamExecutionEnvironment } from '../../src/index.ts';
import { CollectionSource } from '../../src/connectors/collection/index.ts';

function streams() {
  const env = new StreamExecutionEnvironment();
  const a = env.fromSource(new CollectionSource([{ k: 1, t: 0 }]));
  const b = env.fromSource(new CollectionSource([{ k: 1, u: 'x' }]));
  return { a, b };
}

describe('join builders', () => {
  test('intervalJoin bounds: numbers or durations, negative with a minus; lower above upper is refused', () => {
    const { a, b } = streams();
    const joined = a.keyBy((x) => x.k).intervalJoin(b.keyBy((x) => x.k));
    assert.doesNotThrow(() => joined.between('-2 s', '500 ms'));
    assert.throws(
      () => joined.between(10, -10),
      (e: unknown) => e instanceof StreamConnectionError && e.operator === 'IntervalJoin' && /lower \(10 ms\) is above upper \(-10 ms\)/.test(e.message) && /join-api\.test\.ts/.test(e.location ?? ''),
    );
    assert.throws(() => joined.between('soon', 1), /lower must be a number of ms or a duration/);
    assert.throws(() => joined.between(0, 0).lowerBoundExclusive().process({ processElement: () => {} }), /exclusive bounds leave no interval/);
  });

  test('intervalJoin needs a keyed stream and a join function', () => {
    const { a, b } = streams();
    assert.throws(() => a.keyBy((x) => x.k).intervalJoin(b as never), (e: unknown) => e instanceof StreamConnectionError && /takes a keyed stream/.test(e.message));
    assert.throws(() => a.keyBy((x) => x.k).intervalJoin(b.keyBy((x) => x.k)).between(0, 1).process({} as never), /processElement\(left, right, ctx, out\)/);
  });

  test('join and coGroup need key selectors and a function', () => {
    const { a, b } = streams();
    assert.throws(() => a.join(b).where('k' as never), (e: unknown) => e instanceof StreamConnectionError && e.operator === 'join' && /where\(\.\.\.\) needs a function/.test(e.message));
    assert.throws(() => a.coGroup(b).where((x) => x.k).equalTo(1 as never), /equalTo\(\.\.\.\) needs a function/);
    assert.throws(() => a.join({} as never), /join\(\.\.\.\) takes a DataStream/);
  });
});
