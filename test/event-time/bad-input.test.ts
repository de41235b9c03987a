// Event time's bad input: a timestamp assigner that returns NaN, an infinity or a non-number fails
// the job naming the operator and the record (negative timestamps are fine); a window size, slide
// or gap of 0 or less is a graph error naming the line that built it; timers outside a keyed
// context and event-time windows over records without timestamps are clear errors.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  defineJob,
  EventTimeSessionWindows,
  executeJob,
  GraphValidationError,
  OutputTag,
  SlidingEventTimeWindows,
  TumblingEventTimeWindows,
  WatermarkStrategy,
  type Collector,
  type KeyedContext,
  Trigger,
  type ProcessContext,
  type TimeWindow,
  type TriggerResult,
} from '../../src/index.ts';
import { CollectionSource } from '../../src/connectors/collection/index.ts';
import { CollectSink } from '../../src/connectors/collect/index.ts';
import { DiscardSink, runCollecting, uniqueId } from '../fixtures/helpers.ts';

interface R {
  readonly id: number;
  readonly t: unknown;
}

function stampedBy(t: unknown, where: 'source' | 'operator') {
  return defineJob((env) => {
    const strategy = WatermarkStrategy.forMonotonousTimestamps<R>().withTimestampAssigner((r) => r.t as number);
    const records = [{ id: 1, t: 10 }, { id: 2, t }];
    const stream =
      where === 'source'
        ? env.fromSource(new CollectionSource<R>(records), { name: 'Source: records', uid: 'src', watermarks: strategy })
        : env.fromSource(new CollectionSource<R>(records), { uid: 'src' }).assignTimestampsAndWatermarks(strategy, { name: 'Stamp', uid: 'stamp' });
    stream.sinkTo(new DiscardSink());
  });
}

for (const [bad, shown] of [[NaN, 'number NaN'], [Infinity, 'number Infinity'], ['1700000000', 'string "1700000000"'], [undefined, 'undefined']] as const) {
  for (const where of ['source', 'operator'] as const) {
    test(`a timestamp assigner giving ${shown} fails the job naming the ${where === 'source' ? 'source' : 'operator'} and the record`, async () => {
      const result = await executeJob({ job: stampedBy(bad, where), config: { 'restart-strategy.type': 'fixed-delay', 'restart-strategy.fixed-delay.attempts': 3, 'restart-strategy.fixed-delay.delay': 0 } });
      assert.equal(result.status, 'FAILED');
      const message = result.error!.message;
      assert.match(message, where === 'source' ? /the timestamp assigner of 'Source: records' \(uid src\)/ : /the timestamp assigner of 'Stamp' \(uid stamp\)/);
      assert.match(message, new RegExp(`the record object \\{id, t\\} the timestamp ${shown.replace(/[()]/g, '\\$&')}`));
      assert.equal(result.restarts, 0, 'the same record fails the same way again: no restart');
    });
  }
}

test('negative timestamps (before 1970) are valid event times', async () => {
  const id = uniqueId();
  const job = defineJob((env) => {
    env
      .fromSource(new CollectionSource([{ k: 'a', t: -1500 }, { k: 'a', t: -200 }, { k: 'a', t: 300 }]), { uid: 'src', watermarks: WatermarkStrategy.forMonotonousTimestamps<{ k: string; t: number }>().withTimestampAssigner((r) => r.t) })
      .keyBy((r) => r.k)
      .window(TumblingEventTimeWindows.of(1000))
      .process({ process: (_k: string, ctx, es: readonly unknown[], out: Collector<string>) => out.collect(`${(ctx.window() as { start: number }).start}:${es.length}`) }, { uid: 'w' })
      .sinkTo(new CollectSink<string>(id));
  });
  const { result, records } = await runCollecting<string>(id, () => executeJob({ job }));
  assert.equal(result.status, 'FINISHED', result.error?.message);
  assert.deepEqual(records, ['-2000:1', '-1000:1', '0:1']);
});

test('a window size, slide or gap of 0 or less is a GraphValidationError naming the line that built it', () => {
  const cases: Array<[() => unknown, RegExp]> = [
    [() => TumblingEventTimeWindows.of(0), /TumblingEventTimeWindows\.of: the window size must be more than 0 ms.*got 0/],
    [() => SlidingEventTimeWindows.of(1000, -5), /SlidingEventTimeWindows\.of: the slide must be more than 0 ms.*got -5/],
    [() => EventTimeSessionWindows.withGap('0 s'), /EventTimeSessionWindows\.withGap: the session gap must be more than 0 ms.*got "0 s"/],
    [() => TumblingEventTimeWindows.of(100, 100), /the offset must be a number of ms with \|offset\| < 100/],
  ];
  for (const [build, message] of cases) {
    assert.throws(build, (e: unknown) => {
      assert.ok(e instanceof GraphValidationError, String(e));
      assert.match(e.message, message);
      assert.match(e.location ?? '', /bad-input\.test\.ts:\d+/, `names where the job built it: ${e.location}`);
      return true;
    });
  }
});

test('an AggregateFunction without merge over session windows is a graph error; so is a trigger that cannot merge', async () => {
  const sessions = (configure: (w: ReturnType<ReturnType<ReturnType<typeof keyed>['window']>['allowedLateness']>) => unknown) =>
    defineJob((env) => void configure(keyed(env).window(EventTimeSessionWindows.withGap(10)).allowedLateness(0)));
  const keyed = (env: Parameters<Parameters<typeof defineJob>[0]>[0]) => env.fromSource(new CollectionSource([1]), { uid: 'src' }).keyBy(() => 'k');
  await assert.rejects(
    sessions((w) => w.aggregate({ createAccumulator: () => 0, add: (v: number, a: number) => a + v, getResult: (a: number) => a })).plan([]),
    (e: unknown) => e instanceof GraphValidationError && /merging windows combine accumulators, so the AggregateFunction needs merge\(a, b\)/.test(e.message) && /bad-input\.test\.ts/.test(e.location ?? ''),
  );
  class NoMerge extends Trigger<number, TimeWindow> {
    onElement(): TriggerResult {
      return 'CONTINUE';
    }
  }
  await assert.rejects(
    sessions((w) => w.trigger(new NoMerge())).plan([]),
    (e: unknown) => e instanceof GraphValidationError && /NoMerge cannot be used with EventTimeSessionWindows\(10\): merging windows need a trigger whose canMerge\(\) is true/.test(e.message),
  );
});

test('two-phase aggregation (localAggregation) where its first phase cannot stand in for the window: graph errors naming why and where', async () => {
  const sum = { createAccumulator: () => 0, add: (v: number, a: number) => a + v, getResult: (a: number) => a, merge: (a: number, b: number) => a + b };
  const keyed = (env: Parameters<Parameters<typeof defineJob>[0]>[0]) => env.fromSource(new CollectionSource([1]), { uid: 'src' }).keyBy(() => 'k');
  class Custom extends Trigger<number, TimeWindow> {
    onElement(): TriggerResult {
      return 'FIRE';
    }
  }
  const cases: Array<[string, (env: Parameters<Parameters<typeof defineJob>[0]>[0]) => unknown, RegExp]> = [
    ['sessions', (env) => keyed(env).window(EventTimeSessionWindows.withGap(10)).localAggregation(), /localAggregation\(\) over EventTimeSessionWindows\(10\): two-phase aggregation supports tumbling and sliding event-time windows/],
    ['reduce', (env) => keyed(env).window(TumblingEventTimeWindows.of(10)).localAggregation().reduce((a, b) => a + b), /the window needs aggregate\(fn\), not reduce\(\)/],
    ['no merge', (env) => keyed(env).window(TumblingEventTimeWindows.of(10)).localAggregation().aggregate({ ...sum, merge: undefined }), /the AggregateFunction needs merge\(a, b\)/],
    ['late data', (env) => keyed(env).window(TumblingEventTimeWindows.of(10)).sideOutputLateData(new OutputTag<number>('late')).localAggregation().aggregate(sum), /late records reach the window as accumulators, so they cannot go to sideOutputLateData/],
    ['a trigger', (env) => keyed(env).window(TumblingEventTimeWindows.of(10)).trigger(new Custom()).localAggregation().aggregate(sum), /a trigger sees records, and the window gets accumulators/],
  ];
  for (const [what, build, message] of cases) {
    await assert.rejects(defineJob((env) => void build(env)).plan([]), (e: unknown) => {
      assert.ok(e instanceof GraphValidationError, `${what}: ${String(e)}`);
      assert.match(e.message, message, what);
      assert.match(e.location ?? '', /bad-input\.test\.ts:\d+/, `${what}: names where the job built it: ${e.location}`);
      return true;
    });
  }
  await assert.rejects(defineJob((env) => void keyed(env).window(TumblingEventTimeWindows.of(10)).localAggregation(0)).plan([]), /localAggregation\(maxEntries\) needs a whole number >= 1, got 0/);
});

test('registering a timer with no key current (endInput), or in a ProcessFunction on a stream that is not keyed, is a TimerServiceError', async () => {
  const inOpen = defineJob((env) => {
    env
      .fromSource(new CollectionSource(['a']), { uid: 'src' })
      .keyBy((s) => s)
      .process(() => {
        let service: { registerEventTimeTimer(t: number): void } | undefined;
        return {
          processElement(_v: string, ctx: KeyedContext<string>) {
            service = ctx.timerService();
          },
          endInput() {
            service!.registerEventTimeTimer(5);
          },
        };
      }, { name: 'Timers', uid: 'timers' })
      .sinkTo(new DiscardSink());
  });
  const keyed = await executeJob({ job: inOpen });
  assert.equal(keyed.status, 'FAILED');
  assert.match(keyed.error!.message, /TimerServiceError: operator 'Timers' \(uid timers\): registerEventTimeTimer was called with no key current/);

  const unkeyed = defineJob((env) => {
    env
      .fromSource(new CollectionSource(['a']), { uid: 'src' })
      .process({ processElement: (_v: string, ctx: ProcessContext, _out: Collector<string>) => ctx.timerService().registerProcessingTimeTimer(5) }, { name: 'Plain', uid: 'plain' })
      .sinkTo(new DiscardSink());
  });
  const plain = await executeJob({ job: unkeyed });
  assert.equal(plain.status, 'FAILED');
  assert.match(plain.error!.message, /operator 'Plain' \(uid plain\): registerProcessingTimeTimer: timers are only supported on a keyed stream \(call keyBy\(\.\.\.\) before process\(\.\.\.\)\)/);
});

test('an event-time window over records without timestamps says how to give them some', async () => {
  const job = defineJob((env) => {
    env
      .fromSource(new CollectionSource([{ k: 'a' }]), { uid: 'src' })
      .keyBy((r) => r.k)
      .window(TumblingEventTimeWindows.of(10))
      .reduce((a) => a, { name: 'Windows', uid: 'w' })
      .sinkTo(new DiscardSink());
  });
  const result = await executeJob({ job });
  assert.equal(result.status, 'FAILED');
  assert.match(result.error!.message, /operator 'Windows' \(uid w\) puts records into event-time windows, but the record object \{k\} has no timestamp: give the source a WatermarkStrategy/);
});
