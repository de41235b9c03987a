// A source's side output: what a reader sends to SourceOutput.output(tag, value, timestamp) is the
// stream fromSource(...).getSideOutput(tag), chained or over the network, with the timestamp the
// reader gave it; the main output is unchanged, and a tag nothing consumes is dropped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob, executeJob, OutputTag, type InputStatus, type ProcessContext, type Collector, type Source, type SourceOutput, type SourceReader } from '../../src/index.ts';
import { CollectedRecords, CollectSink } from '../../src/connectors/collect/index.ts';
import { runCollecting, uniqueId } from '../fixtures/helpers.ts';

const ODD = new OutputTag<string>('odd');

/** Numbers [0, n): evens to the main output, odds to ODD as text, each with timestamp 1000 + i. */
class SplittingSource implements Source<number, { next: number }> {
  readonly boundedness = 'bounded' as const;
  constructor(readonly n: number) {}
  createSplits() {
    return [{ next: 0 }];
  }
  createReader(): SourceReader<number, { next: number }> {
    let split: { next: number } | undefined;
    const n = this.n;
    return {
      addSplits: (s) => void (split = { ...s[0]! }),
      notifyNoMoreSplits: () => {},
      pollNext(output: SourceOutput<number>): InputStatus {
        if (!split) return 'end';
        for (let k = 0; k < 10 && split.next < n; k++, split.next++) {
          const i = split.next;
          if (i % 2 === 0) output.collect(i, 1000 + i);
          else output.output!(ODD, `odd ${i}`, 1000 + i);
        }
        return split.next < n ? 'more' : 'end';
      },
      isAvailable: () => Promise.resolve(),
      snapshotState: () => (split ? [{ ...split }] : []),
    };
  }
}

const withTime = () => ({
  processElement(v: unknown, ctx: ProcessContext, out: Collector<string>) {
    out.collect(`${String(v)} @${ctx.timestamp()}`);
  },
});

for (const across of ['chained', 'over the network'] as const) {
  test(`a source's side output, ${across}: every side record once with its timestamp, the main output unchanged`, async () => {
    const main = uniqueId();
    const side = uniqueId();
    const job = defineJob((env) => {
      const numbers = env.fromSource(new SplittingSource(200), { uid: 'numbers' });
      numbers.process(withTime).sinkTo(new CollectSink<string>(main));
      const odd = numbers.getSideOutput(ODD);
      (across === 'chained' ? odd : odd.rebalance()).process(withTime, { parallelism: across === 'chained' ? 1 : 2 }).sinkTo(new CollectSink<string>(side), { parallelism: across === 'chained' ? 1 : 2 });
    });
    const sideRecords = new CollectedRecords<string>(side);
    try {
      const { result, records } = await runCollecting<string>(main, () => executeJob({ job, config: { 'parallelism.default': 1 } }));
      assert.equal(result.status, 'FINISHED', result.error?.message);
      const range = Array.from({ length: 200 }, (_, i) => i);
      assert.deepEqual([...records].sort(), range.filter((i) => i % 2 === 0).map((i) => `${i} @${1000 + i}`).sort());
      assert.deepEqual([...(await sideRecords.close(10_000))].sort(), range.filter((i) => i % 2 === 1).map((i) => `odd ${i} @${1000 + i}`).sort());
    } finally {
      await sideRecords.close(1).catch(() => {});
    }
  });
}

test('side records of a tag nothing consumes are dropped; the main output is unchanged', async () => {
  const main = uniqueId();
  const job = defineJob((env) => {
    env.fromSource(new SplittingSource(100), { uid: 'numbers' }).process(withTime).sinkTo(new CollectSink<string>(main));
  });
  const { result, records } = await runCollecting<string>(main, () => executeJob({ job }));
  assert.equal(result.status, 'FINISHED', result.error?.message);
  assert.equal(records.length, 50);
});
