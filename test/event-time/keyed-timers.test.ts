// Keyed event-time timers end to end: watermarks made per source split from out-of-order events,
// a KeyedProcessFunction summing per bucket and emitting each bucket from its timer, at
// parallelism 1..4 in this thread and on worker TaskManagers. No event is later than the
// watermark allows, so every bucket must be complete when its timer fires: the output equals the
// sums computed without the engine.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { join } from 'node:path';
import { executeJob, defineJob, type Collector, type KeyedContext, type OnTimerContext, type ProcessContext } from '../../src/index.ts';
import { WatermarkStrategy } from '../../src/api/watermark-strategy.ts';
import { DataGen, type TimedEvent } from '../../src/connectors/datagen/index.ts';
import { CollectSink } from '../../src/connectors/collect/index.ts';
import { runCollecting, uniqueId } from '../fixtures/helpers.ts';
import { generatedEvents, slidingSums } from '../fixtures/event-time-expectations.ts';
import jobDefinition, { EVENT_TIME_START } from '../fixtures/jobs/event-time-job.ts';

const JOB = join(import.meta.dirname, '..', 'fixtures', 'jobs', 'event-time-job.ts');

describe('event-time timers of a KeyedProcessFunction', () => {
  const EVENTS = 6000;
  const OOO = 300;
  const expected = slidingSums(generatedEvents({ seed: 7, events: EVENTS, keys: 20, ooo: OOO, start: EVENT_TIME_START }), 1000, 1000);

  for (const [parallelism, taskManagers] of [[1, 0], [2, 0], [3, 0], [4, 0], [3, 2]] as const) {
    test(`buckets from timers equal the independent sums at parallelism ${parallelism}${taskManagers ? ` on ${taskManagers} worker TaskManagers` : ' in this thread'}`, async () => {
      const id = uniqueId();
      const { result, records } = await runCollecting<string>(id, () =>
        executeJob({
          job: taskManagers ? JOB : jobDefinition,
          args: ['--kind', 'buckets', '--events', String(EVENTS), '--ooo', String(OOO), '--collect-id', id, '--rate', '20000'],
          config: { 'parallelism.default': parallelism, 'pipeline.auto-watermark-interval': '20 ms' },
          taskManagers,
        }),
      );
      assert.equal(result.status, 'FINISHED', result.error?.message);
      assert.deepEqual(records.sort(), expected);
    });
  }
});

test('records emitted by onTimer carry the timer time; ctx.timestamp() is the record timestamp; side outputs reach getSideOutput', async () => {
  const id = uniqueId();
  const seen: string[] = [];
  const small = new (class {
    processElement(e: TimedEvent, ctx: KeyedContext<string>, out: Collector<string>): void {
      if (ctx.timestamp() !== e.timestamp) throw new Error(`ctx.timestamp() ${ctx.timestamp()} is not the event's ${e.timestamp}`);
      ctx.timerService().registerEventTimeTimer(e.timestamp + 5);
      if (e.value < 10) ctx.output(SMALL, e.value);
      void out;
    }
    onTimer(t: number, ctx: OnTimerContext<string>, out: Collector<string>): void {
      if (ctx.timeDomain() !== 'EVENT_TIME') throw new Error('an event-time timer');
      out.collect(`${ctx.getCurrentKey()}@${t}`);
    }
  })();
  const { OutputTag } = await import('../../src/api/output-tag.ts');
  const SMALL = new OutputTag<number>('small');
  const job = defineJob((env) => {
    const fired = env
      .fromSource(DataGen.events({ count: 200, keys: 3 }), { uid: 'src', watermarks: WatermarkStrategy.forMonotonousTimestamps<TimedEvent>() })
      .keyBy((e) => e.key)
      .process(small, { uid: 'timers' });
    fired
      .process({
        processElement(v: string, ctx: ProcessContext, out: Collector<string>) {
          const t = Number(v.split('@')[1]);
          out.collect(ctx.timestamp() === t ? 'ok' : `record ${v} has timestamp ${ctx.timestamp()}`);
        },
      })
      .union(fired.getSideOutput(SMALL).map((n) => `small ${n}`))
      .sinkTo(new CollectSink<string>(id));
  });
  const { result, records } = await runCollecting<string>(id, () => executeJob({ job }));
  assert.equal(result.status, 'FINISHED', result.error?.message);
  seen.push(...records);
  const events = generatedEvents({ seed: 7, events: 200, keys: 3, ooo: 0, start: 1_700_000_000_000 });
  const timers = new Set(events.map((e) => `${e.key}@${e.timestamp + 5}`));
  assert.deepEqual(seen.filter((r) => !r.startsWith('small')), Array(timers.size).fill('ok'));
  assert.deepEqual(seen.filter((r) => r.startsWith('small')).sort(), events.filter((e) => e.value < 10).map((e) => `small ${e.value}`).sort());
});
