// The event-time window count the `windows` benchmark runs: DataGen.events (keys, out-of-order
// event times) with bounded-out-of-orderness watermarks made per split -> keyBy(key) -> a window
// count (an AggregateFunction with merge) -> a sink that sums the counts. A module of its own
// because worker TaskManagers load the job by path.
//
// Job arguments:
//   --events N         records to generate (default 1,000,000)
//   --keys K           distinct keys (default 100)
//   --rate R           events per second of event time (default 100,000)
//   --ooo MS           max out-of-orderness of the event times, and the watermarks' bound (default 50)
//   --window KIND      tumbling (default) or sliding
//   --size MS          window size (default 1000)
//   --slide MS         sliding windows: the slide (default size / 10)
//   --report-dir DIR   each sink subtask writes sink-<subtask>.json there when it closes
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineJob, SlidingEventTimeWindows, TumblingEventTimeWindows, WatermarkStrategy, type Sink, type SinkContext, type SinkWriter } from '../../src/index.ts';
import { DataGen, type TimedEvent } from '../../src/connectors/datagen/index.ts';

/** What a sink subtask reports at the end: windows it got, and their counts summed. */
export interface WindowSinkReport {
  readonly subtask: number;
  readonly windows: number;
  readonly counted: number;
}

export const COUNT = {
  createAccumulator: () => 0,
  add: (_e: TimedEvent, n: number) => n + 1,
  getResult: (n: number) => n,
  merge: (a: number, b: number) => a + b,
};

class CountSumSink implements Sink<number> {
  readonly #dir: string | undefined;
  constructor(dir: string | undefined) {
    this.#dir = dir;
  }
  createWriter(ctx: SinkContext): SinkWriter<number> {
    let windows = 0;
    let counted = 0;
    return {
      write: (n) => {
        windows++;
        counted += n;
      },
      close: () => {
        if (this.#dir === undefined) return;
        const report: WindowSinkReport = { subtask: ctx.subtaskIndex, windows, counted };
        writeFileSync(join(this.#dir, `sink-${ctx.subtaskIndex}.json`), JSON.stringify(report));
      },
    };
  }
}

export default defineJob((env, args) => {
  const events = args.getNumber('events', 1_000_000);
  const ooo = args.getNumber('ooo', 50);
  const size = args.getNumber('size', 1000);
  const kind = args.get('window', 'tumbling');
  const assigner = kind === 'sliding' ? SlidingEventTimeWindows.of(size, args.getNumber('slide', size / 10)) : TumblingEventTimeWindows.of(size);
  env
    .fromSource(DataGen.events({ seed: 7, count: events, keys: args.getNumber('keys', 100), eventsPerSecond: args.getNumber('rate', 100_000), maxOutOfOrderness: ooo }), {
      name: 'Source: events',
      uid: 'source',
      watermarks: WatermarkStrategy.forBoundedOutOfOrderness<TimedEvent>(ooo),
    })
    .keyBy((e) => e.key)
    .window(assigner)
    .aggregate(COUNT, { name: 'Count', uid: 'counts' })
    .sinkTo(new CountSumSink(args.get('report-dir')), { name: 'Sink: sum', uid: 'sink' });
});
