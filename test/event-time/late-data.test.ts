// Late records, deterministically: one scripted source (records and watermarks in a fixed order)
// into tumbling windows of 10 ms with 20 ms allowed lateness. A record late but within the
// lateness makes its window fire again with the updated result; one beyond it goes to the late
// side output exactly once (or, without one, counts in numLateRecordsDropped); sliding windows
// (panes) and session windows do the same.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  createJobMaster,
  defineJob,
  EventTimeSessionWindows,
  executeJob,
  OutputTag,
  SlidingEventTimeWindows,
  TumblingEventTimeWindows,
  type Collector,
  type TimeWindow,
  type WindowAssigner,
  type WindowContext,
} from '../../src/index.ts';
import { CollectSink } from '../../src/connectors/collect/index.ts';
import { DiscardSink, runCollecting, uniqueId } from '../fixtures/helpers.ts';
import { ScriptedSource, type ScriptItem } from '../fixtures/scripted-source.ts';

interface Ev {
  readonly key: string;
  readonly v: number;
}
const ev = (key: string, ts: number, v: number): ScriptItem<Ev> => ({ record: { key, v }, timestamp: ts });
const wm = (watermark: number): ScriptItem<Ev> => ({ watermark });

const SCRIPT: ScriptItem<Ev>[] = [
  ev('a', 1, 1),
  ev('a', 5, 2),
  wm(12), // [0,10) fires: a 3
  ev('a', 3, 10), // late, within the lateness (cleanup at 9 + 20 = 29): [0,10) fires again: a 13
  ev('a', 15, 4),
  wm(31), // [10,20) fires: a 4; [0,10) is cleaned up (29 <= 31)
  ev('a', 2, 100), // beyond the lateness: late data
  ev('b', 8, 7), // its window never existed and is past its lateness: late data
  ev('a', 25, 1), // the end of input fires [20,30): a 1
];

const LATE = new OutputTag<Ev>('late');

function windowJob(id: string, assigner: WindowAssigner<Ev, TimeWindow>, sideOutput: boolean, script = SCRIPT) {
  return defineJob((env) => {
    const windowed = env
      .fromSource(new ScriptedSource(script), { uid: 'src' })
      .keyBy((e: Ev) => e.key)
      .window(assigner)
      .allowedLateness(20);
    if (sideOutput) windowed.sideOutputLateData(LATE);
    const sums = windowed.process(
      { process: (key: string, ctx: WindowContext<TimeWindow>, es: readonly Ev[], out: Collector<string>) => out.collect(`${key} [${ctx.window().start},${ctx.window().end}) ${es.reduce((n, e) => n + e.v, 0)}`) },
      { uid: 'windows' },
    );
    sums.union(sums.getSideOutput(LATE).map((e) => `late ${e.key} ${e.v}`)).sinkTo(new CollectSink<string>(id));
  });
}

test('tumbling: a late record within the allowed lateness fires its window again; beyond it, it goes to the side output once', async () => {
  const id = uniqueId();
  const { result, records } = await runCollecting<string>(id, () => executeJob({ job: windowJob(id, TumblingEventTimeWindows.of(10), true) }));
  assert.equal(result.status, 'FINISHED', result.error?.message);
  assert.deepEqual(records, ['a [0,10) 3', 'a [0,10) 13', 'a [10,20) 4', 'late a 100', 'late b 7', 'a [20,30) 1']);
});

test('sliding windows of panes: late records within the lateness update every window they belong to', async () => {
  const id = uniqueId();
  const script: ScriptItem<Ev>[] = [ev('a', 1, 1), ev('a', 12, 2), wm(20), ev('a', 8, 10), wm(45), ev('a', 6, 100), ev('a', 50, 1)];
  const { result, records } = await runCollecting<string>(id, () => executeJob({ job: windowJob(id, SlidingEventTimeWindows.of(20, 10), true, script) }));
  assert.equal(result.status, 'FINISHED', result.error?.message);
  assert.deepEqual(records, [
    'a [-10,10) 1', // at watermark 20: the windows ending by then, in time order
    'a [0,20) 3',
    'a [0,20) 13', // a@8 is late for both its windows but within their lateness: both fire again (latest first, as Flink assigns them)
    'a [-10,10) 11',
    'a [10,30) 2', // at watermark 45; [-10,10) and [0,20) are gone
    'late a 100', // a@6 belongs to those two only
    'a [40,60) 1', // the end of input
    'a [50,70) 1',
  ]);
});

test('session windows: a late record within the lateness merges into the fired session and fires it again', async () => {
  const id = uniqueId();
  const script: ScriptItem<Ev>[] = [ev('a', 0, 1), ev('a', 4, 2), wm(20), ev('a', 12, 10), wm(100), ev('a', 1, 100)];
  const { result, records } = await runCollecting<string>(id, () => executeJob({ job: windowJob(id, EventTimeSessionWindows.withGap(5), true, script) }));
  assert.equal(result.status, 'FINISHED', result.error?.message);
  // a@12 starts [12,17), which touches nothing: a session of its own, late (16 <= 20) but within the lateness.
  assert.deepEqual(records, ['a [0,9) 3', 'a [12,17) 10', 'late a 100']);
});

test('without a late-data side output, late records count in numLateRecordsDropped of the window operator', async () => {
  const master = await createJobMaster({
    job: defineJob((env) => {
      env
        .fromSource(new ScriptedSource(SCRIPT, { stayOpen: true }), { uid: 'src' })
        .keyBy((e: Ev) => e.key)
        .window(TumblingEventTimeWindows.of(10))
        .allowedLateness(20)
        .reduce((a, b) => ({ key: a.key, v: a.v + b.v }), { uid: 'windows' })
        .sinkTo(new DiscardSink());
    }),
  });
  const done = master.run();
  try {
    const dropped = () => master.taskMetrics().flatMap((t) => t.operators ?? []).find((o) => o.uid === 'windows')?.numLateRecordsDropped;
    for (let i = 0; i < 200 && dropped() !== 2; i++) await new Promise((r) => setTimeout(r, 25));
    assert.equal(dropped(), 2);
  } finally {
    await master.cancel();
    await done;
  }
});

/** Two source subtasks of keyed events and watermarks, for the windowAll tests. */
const windowAllSource = () =>
  ScriptedSource.perSubtask<Ev>([
    [ev('a', 1, 1), ev('b', 12, 2), wm(15), ev('a', 25, 4)],
    [ev('c', 3, 10), wm(9), ev('d', 14, 20), ev('e', 31, 40)],
  ]);
/** windowAll's results over windowAllSource: the keys and the sum of each window of 10. */
const WINDOW_ALL_RESULTS = ['[0,10) ac 11', '[10,20) bd 22', '[20,30) a 4', '[30,40) e 40'];

/** Runs a windowAll job at parallelism 2 into the collect sink `id`; its results, and its plan's vertex parallelism of uid 'all'. */
async function runWindowAll(id: string, job: ReturnType<typeof defineJob>) {
  const { result, records } = await runCollecting<string>(id, () => executeJob({ job, config: { 'parallelism.default': 2 } }));
  assert.equal(result.status, 'FINISHED', result.error?.message);
  const plan = await job.plan([], { commandLine: { 'parallelism.default': 2 } });
  return { records, plan, windowParallelism: plan.jobGraph.vertices.find((v) => v.operators.some((o) => o.uid === 'all'))!.parallelism };
}

test('windowAll: the windows of the whole stream in one subtask, fed by two source subtasks; its parallelism cannot be more than 1', async () => {
  const id = uniqueId();
  const source = windowAllSource();
  const job = defineJob((env) => {
    env
      .fromSource(source, { uid: 'src', parallelism: 2 })
      .windowAll(TumblingEventTimeWindows.of(10))
      .process(
        { process: (ctx: WindowContext<TimeWindow>, es: readonly Ev[], out: Collector<string>) => out.collect(`[${ctx.window().start},${ctx.window().end}) ${es.map((e) => e.key).sort().join('')} ${es.reduce((n, e) => n + e.v, 0)}`) },
        { uid: 'all' },
      )
      .sinkTo(new CollectSink<string>(id), { parallelism: 1 });
  });
  const { records, windowParallelism } = await runWindowAll(id, job);
  assert.deepEqual(records, WINDOW_ALL_RESULTS);
  assert.equal(windowParallelism, 1);

  await assert.rejects(
    defineJob((env) => {
      env.fromSource(source, { uid: 'src' }).windowAll(TumblingEventTimeWindows.of(10)).reduce((a) => a, { parallelism: 3 });
    }).plan([]),
    /windowAll runs in one subtask: its parallelism must be 1, got 3/,
  );
});

test('windowAll in two phases: each source subtask pre-aggregates its windows before the one window subtask merges them, with the same results', async () => {
  const id = uniqueId();
  interface Acc {
    keys: string;
    sum: number;
  }
  const job = defineJob((env) => {
    env
      .fromSource(windowAllSource(), { uid: 'src', parallelism: 2 })
      .windowAll(TumblingEventTimeWindows.of(10))
      .localAggregation()
      .aggregate(
        {
          createAccumulator: (): Acc => ({ keys: '', sum: 0 }),
          add: (e: Ev, a: Acc) => ({ keys: a.keys + e.key, sum: a.sum + e.v }),
          getResult: (a: Acc) => a,
          merge: (a: Acc, b: Acc) => ({ keys: a.keys + b.keys, sum: a.sum + b.sum }),
        },
        { process: (ctx: WindowContext<TimeWindow>, [a]: readonly Acc[], out: Collector<string>) => out.collect(`[${ctx.window().start},${ctx.window().end}) ${[...a!.keys].sort().join('')} ${a!.sum}`) },
        { uid: 'all' },
      )
      .sinkTo(new CollectSink<string>(id), { parallelism: 1 });
  });
  const { records, plan, windowParallelism } = await runWindowAll(id, job);
  assert.deepEqual(records, WINDOW_ALL_RESULTS);
  const first = plan.jobGraph.vertices.find((v) => v.operators.some((o) => o.name.startsWith('LocalWindowAggregate')))!;
  assert.equal(first.parallelism, 2, 'the first phase runs in each source subtask');
  assert.ok(first.operators.some((o) => o.uid === 'src'), 'chained to the source');
  assert.equal(windowParallelism, 1);
});
