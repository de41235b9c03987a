// connect() in a job: CoMap / CoFlatMap / CoProcessFunction over two streams, a keyed co-process
// function with shared keyed state, timers and side outputs, applyToKeyedState from the broadcast
// side, and the errors of connecting streams wrongly (naming the operator and the user's line).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob, executeJob, MapStateDescriptor, OutputTag, StreamConnectionError, ValueStateDescriptor } from '../../src/index.ts';
import type { Collector, JobDefinition, KeyedStream, KeyedBroadcastProcessFunction, KeyedCoProcessFunction, RuntimeContext, ValueState } from '../../src/index.ts';
import { CollectionSource } from '../../src/connectors/collection/index.ts';
import { CollectSink, CollectedRecords } from '../../src/connectors/collect/index.ts';
import { ControlledSource } from '../fixtures/recovery-helpers.ts';

async function run<T>(name: string, build: (sink: CollectSink<T>) => JobDefinition): Promise<{ out: T[]; error: Error | undefined; status: string }> {
  const collected = new CollectedRecords<T>(name);
  const result = await executeJob({ job: build(new CollectSink<T>(name)) });
  // A failed job's writers never report their end: nothing to wait for.
  const out = result.status === 'FINISHED' ? await collected.close() : await collected.close(0).catch(() => []);
  return { out, error: result.error, status: result.status };
}

const words = Array.from({ length: 300 }, (_, i) => `w${i % 17}`);
const numbers = Array.from({ length: 200 }, (_, i) => i);

test('CoMap and CoFlatMap: each input through its own function, every record once', async () => {
  const mapped = await run<string>('co-map', (sink) =>
    defineJob((env) => {
      env.setParallelism(2);
      const a = env.fromSource(new CollectionSource(words));
      const b = env.fromSource(new CollectionSource(numbers));
      a.connect(b).map({ map1: (w) => `w:${w}`, map2: (n) => `n:${n * 2}` }).sinkTo(sink);
    }),
  );
  assert.equal(mapped.status, 'FINISHED', mapped.error?.message);
  assert.deepEqual(mapped.out.sort(), [...words.map((w) => `w:${w}`), ...numbers.map((n) => `n:${n * 2}`)].sort());

  const flat = await run<string>('co-flat-map', (sink) =>
    defineJob((env) => {
      env.setParallelism(3);
      const a = env.fromSource(new CollectionSource(words));
      const b = env.fromSource(new CollectionSource(numbers));
      a.connect(b)
        .flatMap({
          flatMap1: (w) => [w, w],
          flatMap2: (n, out) => {
            if (n % 2 === 0) out.collect(`even ${n}`);
          },
        })
        .sinkTo(sink);
    }),
  );
  assert.equal(flat.status, 'FINISHED', flat.error?.message);
  assert.deepEqual(flat.out.sort(), [...words.flatMap((w) => [w, w]), ...numbers.filter((n) => n % 2 === 0).map((n) => `even ${n}`)].sort());
});

const UNMATCHED = new OutputTag<string>('unmatched');

/** Counts per key over both inputs; a timer at the end reports each key's counts, and keys seen on one side only go to a side output. */
class CountBoth implements KeyedCoProcessFunction<string, string, number, string> {
  #left!: ValueState<number>;
  #right!: ValueState<number>;
  open(ctx: RuntimeContext): void {
    this.#left = ctx.getState(new ValueStateDescriptor<number>('left'));
    this.#right = ctx.getState(new ValueStateDescriptor<number>('right'));
  }
  processElement1(_w: string, ctx: Parameters<KeyedCoProcessFunction<string, string, number, string>['processElement1']>[1]): void {
    this.#left.update((this.#left.value() ?? 0) + 1);
    ctx.timerService().registerEventTimeTimer(1);
  }
  processElement2(_n: number, ctx: Parameters<KeyedCoProcessFunction<string, string, number, string>['processElement2']>[1]): void {
    this.#right.update((this.#right.value() ?? 0) + 1);
    ctx.timerService().registerEventTimeTimer(1);
  }
  onTimer(_t: number, ctx: Parameters<NonNullable<KeyedCoProcessFunction<string, string, number, string>['onTimer']>>[1], out: Collector<string>): void {
    const [l, r] = [this.#left.value() ?? 0, this.#right.value() ?? 0];
    if (l === 0 || r === 0) ctx.output(UNMATCHED, ctx.getCurrentKey());
    else out.collect(`${ctx.getCurrentKey()}:${l}:${r}`);
  }
}

test('keyed co-process: both inputs share a key’s state and timers; side outputs reach their stream', async () => {
  const name = 'keyed-co-process';
  const unmatched = new CollectedRecords<string>(`${name}-side`);
  const result = await run<string>(name, (sink) =>
    defineJob((env) => {
      env.setParallelism(3);
      const a = env.fromSource(new CollectionSource(words));
      const b = env.fromSource(new CollectionSource(numbers));
      const counted = a
        .keyBy((w) => w)
        .connect(b.keyBy((n) => `w${n % 20}`))
        .process(() => new CountBoth(), { uid: 'count-both' });
      counted.sinkTo(sink);
      counted.getSideOutput(UNMATCHED).sinkTo(new CollectSink<string>(`${name}-side`));
    }),
  );
  assert.equal(result.status, 'FINISHED', result.error?.message);
  const expected: string[] = [];
  const expectedUnmatched: string[] = [];
  for (let k = 0; k < 20; k++) {
    const key = `w${k}`;
    const l = words.filter((w) => w === key).length;
    const r = numbers.filter((n) => n % 20 === k).length;
    if (l > 0 && r > 0) expected.push(`${key}:${l}:${r}`);
    else expectedUnmatched.push(key);
  }
  assert.deepEqual(result.out.sort(), expected.sort());
  assert.deepEqual((await unmatched.close()).sort(), expectedUnmatched.sort());
  assert.ok(expectedUnmatched.length > 0 && expected.length > 0);
});

const LIMITS = new MapStateDescriptor<string, number>('limits');
const SEEN = new ValueStateDescriptor<number>('seen');

/** The broadcast side caps every key's count with applyToKeyedState; the keyed side reads the cap. */
class Capped implements KeyedBroadcastProcessFunction<string, string, number, string> {
  #seen!: ValueState<number>;
  open(ctx: RuntimeContext): void {
    this.#seen = ctx.getState(SEEN);
  }
  processElement(w: string, ctx: Parameters<KeyedBroadcastProcessFunction<string, string, number, string>['processElement']>[1], out: Collector<string>): void {
    const cap = ctx.getBroadcastState(LIMITS).get('cap') ?? Infinity;
    const n = Math.min(cap, (this.#seen.value() ?? 0) + 1);
    this.#seen.update(n);
    out.collect(`${w}:${n}`);
  }
  processBroadcastElement(cap: number, ctx: Parameters<KeyedBroadcastProcessFunction<string, string, number, string>['processBroadcastElement']>[1], out: Collector<string>): void {
    ctx.getBroadcastState(LIMITS).put('cap', cap);
    ctx.applyToKeyedState(SEEN, (key, state) => {
      const v = state.value()!;
      if (v > cap) {
        state.update(cap);
        out.collect(`capped ${String(key)} ${v}->${cap}`);
      }
    });
  }
}

test('applyToKeyedState visits every key of this subtask with its state, from the broadcast side', async () => {
  let wordsDone = 0;
  const few = Array.from({ length: 60 }, (_, i) => `k${i % 6}`);
  const result = await run<string>('apply-to-keyed-state', (sink) =>
    defineJob((env) => {
      env.setParallelism(2);
      // The cap comes only once every word is counted: the test then knows each key's count (10).
      const caps = env.fromSource(new ControlledSource(new CollectionSource([4]), { open: () => wordsDone === few.length }), { name: 'caps' }).broadcast(LIMITS);
      env
        .fromSource(new CollectionSource(few))
        .map((w) => {
          wordsDone++;
          return w;
        })
        .keyBy((w) => w)
        .connect(caps)
        .process(() => new Capped(), { uid: 'capped' })
        .sinkTo(sink);
    }),
  );
  assert.equal(result.status, 'FINISHED', result.error?.message);
  const capped = result.out.filter((l) => l.startsWith('capped')).sort();
  assert.deepEqual(capped, ['k0', 'k1', 'k2', 'k3', 'k4', 'k5'].map((k) => `capped ${k} 10->4`), 'every key, in whichever subtask, was visited once');
});

test('keyed streams whose keys differ in type: the job fails at once naming the operator and the line of connect', async () => {
  const r = await run<string>('key-type-mismatch', (sink) =>
    defineJob((env) => {
      const a = env.fromSource(new CollectionSource(['1', '2']));
      const b = env.fromSource(new CollectionSource([1, 2]));
      // The key selectors' types differ (string and number): TypeScript sees it only if both are annotated.
      a.keyBy((s) => s)
        .connect(b.keyBy((n) => n) as unknown as KeyedStream<number, string>)
        .process({ processElement1: () => {}, processElement2: () => {} }, { uid: 'mismatched', name: 'Mismatched' })
        .sinkTo(sink);
    }),
  );
  assert.equal(r.status, 'FAILED');
  const message = r.error?.message ?? '';
  assert.match(message, /operator 'Mismatched' \(uid mismatched\) connects two keyed streams whose keys differ in type: input 1 gives string keys, input 2 gives number keys/);
  assert.match(message, /connected at .*connected-streams\.test\.ts:\d+:\d+/);
});

test('broadcast state on the wrong side: an undeclared descriptor, keyed state by a broadcast descriptor, a write from the keyed side', async () => {
  const other = new MapStateDescriptor<string, number>('other');
  const cases: Array<{ what: string; fn: KeyedBroadcastProcessFunction<string, string, number, string>; message: RegExp }> = [
    {
      what: 'undeclared',
      fn: { processElement: (_w, ctx) => void ctx.getBroadcastState(other).get('x'), processBroadcastElement: () => {} },
      message: /operator 'Rules' \(uid rules\), broadcast state 'other': the broadcast stream connected here declares 'limits', not this one.*\(the stream was broadcast at .*connected-streams\.test\.ts:\d+:\d+\)/,
    },
    {
      what: 'keyed by a broadcast descriptor',
      fn: { open: (ctx) => void ctx.getMapState(LIMITS), processElement: () => {}, processBroadcastElement: () => {} },
      message: /broadcast state 'limits': it is broadcast state, not keyed state/,
    },
    {
      what: 'written from the keyed side',
      fn: { processElement: (_w, ctx) => (ctx.getBroadcastState(LIMITS) as unknown as { put(k: string, v: number): void }).put('cap', 1), processBroadcastElement: () => {} },
      message: /broadcast state 'limits': the non-broadcast side may only read broadcast state/,
    },
  ];
  for (const c of cases) {
    const r = await run<string>(`wrong-side-${c.what}`, (sink) =>
      defineJob((env) => {
        const rules = env.fromSource(new CollectionSource([1])).broadcast(LIMITS);
        env.fromSource(new CollectionSource(['a'])).keyBy((w) => w).connect(rules).process(c.fn, { uid: 'rules', name: 'Rules' }).sinkTo(sink);
      }),
    );
    assert.equal(r.status, 'FAILED', c.what);
    assert.match(r.error?.message ?? '', c.message, c.what);
  }
});

test('broadcast() of something that is not a MapStateDescriptor is refused while the job is built, at the user’s line', async () => {
  await assert.rejects(
    () =>
      defineJob((e) => {
        e.fromSource(new CollectionSource([1])).broadcast(new ValueStateDescriptor<number>('v') as never);
      }).plan([]),
    (err: unknown) => {
      const cause = (err as { cause?: unknown }).cause ?? err;
      assert.ok(cause instanceof StreamConnectionError, String(err));
      assert.match(cause.message, /operator 'broadcast': broadcast state is a map: broadcast\(\.\.\.\) takes MapStateDescriptors, got a ValueStateDescriptor \(at .*connected-streams\.test\.ts:\d+:\d+\)/);
      return true;
    },
  );
});
