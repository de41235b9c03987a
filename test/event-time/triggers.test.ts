// Window operators on their own, on a manual clock: processing-time windows, GlobalWindows with a
// CountTrigger and a PurgingTrigger, ContinuousEventTimeTrigger, a user Trigger, session merges
// with trigger state, per-window state cleared with the window, and records emitted with the
// window's end - 1 as their timestamp.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ContinuousEventTimeTrigger,
  CountTrigger,
  EventTimeSessionWindows,
  GlobalWindows,
  PurgingTrigger,
  SlidingProcessingTimeWindows,
  Trigger,
  TumblingEventTimeWindows,
  TumblingProcessingTimeWindows,
  ValueStateDescriptor,
  type Collector,
  type TriggerContext,
  type TriggerResult,
  type Window,
  type WindowContext,
  type TimeWindow,
} from '../../src/index.ts';
import type { WindowDefinition } from '../../src/api/windowing/window-definition.ts';
import { WindowedStream } from '../../src/api/windowing/windowed-stream.ts';
import { createWindowOperator } from '../../src/worker/windowing/create-window-operator.ts';
import { OperatorHarness } from '../fixtures/operator-harness.ts';

interface Ev {
  readonly key: string;
  readonly v: number;
}

/** A window operator from what the API records, in a harness; records are keyed by `key`. */
async function windowHarness<W extends Window>(assigner: ConstructorParameters<typeof WindowedStream<Ev, string, W>>[0], configure: (w: WindowedStream<Ev, string, W>) => unknown, start = 0): Promise<OperatorHarness> {
  let definition: WindowDefinition | undefined;
  const w = new WindowedStream<Ev, string, W>(assigner, (d) => {
    definition = d;
    return undefined as never;
  });
  configure(w);
  const h = new OperatorHarness(createWindowOperator(definition!, (e) => (e as Ev).key), { start, sideOutputs: ['late'] });
  await h.open();
  return h;
}

const sum = (a: Ev, b: Ev): Ev => ({ key: a.key, v: a.v + b.v });
const describeWindow = {
  process: (key: string, ctx: WindowContext<Window>, es: readonly Ev[], out: Collector<string>) => {
    const w = ctx.window() as TimeWindow;
    out.collect(`${key} ${'start' in w ? `[${w.start},${w.end})` : 'global'} ${es.reduce((n, e) => n + e.v, 0)}`);
  },
};


test('tumbling processing-time windows fire as the clock passes their end, as mail', async () => {
  const h = await windowHarness(TumblingProcessingTimeWindows.of(100), (w) => w.process(describeWindow), 1000);
  h.element({ key: 'a', v: 1 });
  h.advance(30);
  h.element({ key: 'a', v: 2 });
  h.element({ key: 'b', v: 5 });
  assert.deepEqual(h.take(), []);
  h.advance(70); // 1100: the window [1000, 1100) ended at 1099
  assert.deepEqual(h.take(), ['a [1000,1100) 3', 'b [1000,1100) 5']);
  h.element({ key: 'a', v: 7 });
  h.advance(100);
  assert.deepEqual(h.take(), ['a [1100,1200) 7']);
});

test('sliding processing-time windows: every window a record falls in', async () => {
  const h = await windowHarness(SlidingProcessingTimeWindows.of(100, 50), (w) => w.reduce(sum, describeWindow as never), 1000);
  h.element({ key: 'a', v: 1 }); // 1000: [950,1050) and [1000,1100)
  h.advance(60);
  h.element({ key: 'a', v: 2 }); // 1060: [1000,1100), [1050,1150)
  h.advance(200);
  assert.deepEqual(h.take(), ['a [950,1050) 1', 'a [1000,1100) 3', 'a [1050,1150) 2']);
});

test('GlobalWindows with a CountTrigger fires every n records of a key; a PurgingTrigger empties the window each time', async () => {
  const counting = await windowHarness(GlobalWindows.create(), (w) => w.trigger(CountTrigger.of(2)).process(describeWindow));
  for (const v of [1, 2, 3, 4, 5]) counting.element({ key: 'a', v });
  counting.element({ key: 'b', v: 10 });
  assert.deepEqual(counting.take(), ['a global 3', 'a global 10']);

  const purging = await windowHarness(GlobalWindows.create(), (w) => w.trigger(PurgingTrigger.of(CountTrigger.of(2))).process(describeWindow));
  for (const v of [1, 2, 3, 4, 5]) purging.element({ key: 'a', v });
  assert.deepEqual(purging.take(), ['a global 3', 'a global 7']);
});

test('ContinuousEventTimeTrigger fires every interval of event time within the window and at its end', async () => {
  const h = await windowHarness(TumblingEventTimeWindows.of(100), (w) => w.trigger(ContinuousEventTimeTrigger.of(30)).process(describeWindow));
  h.element({ key: 'a', v: 1 }, 5);
  h.element({ key: 'a', v: 2 }, 40);
  h.watermark(29);
  assert.deepEqual(h.take(), [], 'the first interval ends at 30');
  h.watermark(35);
  assert.deepEqual(h.take(), ['a [0,100) 3']);
  h.element({ key: 'a', v: 4 }, 70);
  h.watermark(65);
  assert.deepEqual(h.take(), ['a [0,100) 7'], 'at 60');
  h.watermark(99);
  assert.deepEqual(h.take(), ['a [0,100) 7', 'a [0,100) 7'], 'at 90, and at the end of the window (99)');
});

test('a user Trigger with its own state: fires when a record with v >= 10 arrives, purges, and clears its state with the window', async () => {
  class BigValueTrigger extends Trigger<Ev, TimeWindow> {
    readonly seen = new ValueStateDescriptor<number>('seen');
    onElement(e: Ev, _ts: number, window: TimeWindow, ctx: TriggerContext): TriggerResult {
      const seen = ctx.getPartitionedState(this.seen);
      seen.update((seen.value() ?? 0) + 1);
      ctx.registerEventTimeTimer(window.maxTimestamp());
      return e.v >= 10 ? 'FIRE_AND_PURGE' : 'CONTINUE';
    }
    override onEventTime(time: number, window: TimeWindow): TriggerResult {
      return time === window.maxTimestamp() ? 'FIRE' : 'CONTINUE';
    }
    override clear(window: TimeWindow, ctx: TriggerContext): void {
      ctx.getPartitionedState(this.seen).clear();
      ctx.deleteEventTimeTimer(window.maxTimestamp());
    }
  }
  const h = await windowHarness(TumblingEventTimeWindows.of(100), (w) => w.trigger(new BigValueTrigger() as never).process(describeWindow));
  h.element({ key: 'a', v: 1 }, 1);
  h.element({ key: 'a', v: 10 }, 2);
  h.element({ key: 'a', v: 3 }, 3);
  assert.deepEqual(h.take(), ['a [0,100) 11']);
  h.watermark(100);
  assert.deepEqual(h.take(), ['a [0,100) 3']);
  assert.equal(h.backend.states.get('_trigger/seen')?.table.size ?? 0, 0, 'the trigger state is gone with the window');
});

test('session windows merge as records bridge them; the merged window fires once with everything, with its end - 1 as timestamp', async () => {
  const h = await windowHarness(EventTimeSessionWindows.withGap(10), (w) => w.trigger(PurgingTrigger.of(CountTrigger.of(3)) as never).process(describeWindow));
  h.element({ key: 'a', v: 1 }, 0); // [0,10)
  h.element({ key: 'a', v: 2 }, 30); // [30,40)
  h.element({ key: 'a', v: 4 }, 15); // [15,25): touches neither
  h.element({ key: 'a', v: 8 }, 8); // [8,18) bridges [0,10) and [15,25): [0,25); their counts merge (1 + 1), + 1 = 3: fires
  assert.deepEqual(h.output.map((e) => [e.value, e.timestamp]), [['a [0,25) 13', 24]]);
});

test('per-window state of a ProcessWindowFunction lives with its window and is cleared by clear()', async () => {
  const fires = new ValueStateDescriptor<number>('fires');
  const h = await windowHarness(TumblingEventTimeWindows.of(100), (w) =>
    w.allowedLateness(50).process({
      process(key: string, ctx: WindowContext<Window>, es: readonly Ev[], out: Collector<string>) {
        const n = (ctx.windowState().getState(fires).value() ?? 0) + 1;
        ctx.windowState().getState(fires).update(n);
        out.collect(`${key} firing ${n} of ${es.length}`);
      },
      clear(ctx: WindowContext<Window>) {
        ctx.windowState().getState(fires).clear();
      },
    }),
  );
  h.element({ key: 'a', v: 1 }, 10);
  h.watermark(100);
  h.element({ key: 'a', v: 1 }, 20); // late, within the lateness: fires again
  assert.deepEqual(h.take(), ['a firing 1 of 1', 'a firing 2 of 2']);
  h.watermark(200);
  assert.equal(h.backend.states.get('_window-state/fires')?.table.size ?? 0, 0, 'cleared with the window (at 99 + 50)');
  assert.equal(h.backend.states.get('_window-contents')?.table.size ?? 0, 0);
});
