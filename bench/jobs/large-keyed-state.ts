// The job of the `larger-than-heap` benchmark, run by `weir run` in a process of its own (so its
// heap can be limited): --keys keys get a value of about --value-bytes bytes each (phase 1,
// positions 0..keys-1), then every key's value is read back and checked (phase 2, positions
// keys..2*keys-1). A value carries how many times its key was written, so a record applied twice
// across a kill and restore (state restored, the same record replayed) shows as bad, as does a
// value lost or changed. The sink writes {"ok":n,"bad":n,"firstBad":...} to --output when the
// input ends; its counts are checkpointed, so a run resumed from any checkpoint ends with every
// key counted exactly once.
import { writeFileSync } from 'node:fs';
import { defineJob, ValueStateDescriptor, type Collector, type KeyedContext, type KeyedProcessFunction, type RuntimeContext, type ValueState } from '../../src/index.ts';
import { DataGen } from '../../src/connectors/datagen/index.ts';
import type { Sink, SinkWriter } from '../../src/api/sink.ts';

/** Key `key`'s value after `writes` writes. */
export const valueOf = (key: number, writes: number, bytes: number): string => `${key}:${writes}:${'v'.repeat(bytes)}`;

/** Public fields: a function is copied into each subtask, and private fields do not survive the copy. */
class WriteThenCheck implements KeyedProcessFunction<number, number, string> {
  readonly keys: number;
  readonly bytes: number;
  state!: ValueState<string>;
  constructor(keys: number, bytes: number) {
    this.keys = keys;
    this.bytes = bytes;
  }
  open(ctx: RuntimeContext): void {
    this.state = ctx.getState(new ValueStateDescriptor<string>('payload'));
  }
  processElement(position: number, ctx: KeyedContext<number>, out: Collector<string>): void {
    const key = ctx.getCurrentKey();
    const value = this.state.value();
    if (position < this.keys) {
      const writes = value === undefined ? 0 : Number(value.split(':', 2)[1]);
      this.state.update(valueOf(key, writes + 1, this.bytes));
      return;
    }
    out.collect(value === valueOf(key, 1, this.bytes) ? 'ok' : `bad ${key}: ${value === undefined ? 'no value' : value.slice(0, 40)}`);
  }
}

interface Tally {
  ok: number;
  bad: number;
  firstBad: string | null;
}

/** Its counts are its state in each checkpoint, so a run restored in phase 2 goes on counting where the checkpoint was. */
class TallySink implements Sink<string, Tally> {
  readonly output: string;
  constructor(output: string) {
    this.output = output;
  }
  createWriter(_ctx: unknown, restored: readonly Tally[]): SinkWriter<string, Tally> {
    const t: Tally = { ok: 0, bad: 0, firstBad: null };
    for (const r of restored) {
      t.ok += r.ok;
      t.bad += r.bad;
      t.firstBad ??= r.firstBad;
    }
    return {
      write: (v) => {
        if (v === 'ok') t.ok++;
        else {
          t.bad++;
          t.firstBad ??= v;
        }
      },
      snapshotState: () => [{ ...t }],
      flush: () => writeFileSync(this.output, JSON.stringify(t)),
    };
  }
}

export default defineJob((env, args) => {
  const keys = args.getNumber('keys', 100_000);
  const bytes = args.getNumber('value-bytes', 1000);
  env.setParallelism(1);
  env
    .fromSource(DataGen.of((i) => i, { count: 2 * keys }), { name: 'Source: positions', uid: 'source' })
    .keyBy((p) => p % keys)
    .process(new WriteThenCheck(keys, bytes), { name: 'Write then check', uid: 'store' })
    .sinkTo(new TallySink(args.get('output', 'tally.json')), { name: 'Sink: tally', uid: 'sink' });
});
