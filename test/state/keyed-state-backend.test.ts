// Keyed state: the heap backend on its own, and every state type through a KeyedProcessFunction in
// a running job, compared with a plain per-key model of the same operations.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  AggregatingStateDescriptor,
  defineJob,
  executeJob,
  keyGroupFor,
  KeyedStateError,
  ListStateDescriptor,
  MapStateDescriptor,
  ReducingStateDescriptor,
  ValueStateDescriptor,
  type AggregatingState,
  type Collector,
  type KeyedContext,
  type KeyedProcessFunction,
  type ListState,
  type MapState,
  type ReducingState,
  type RuntimeContext,
  type ValueState,
} from '../../src/index.ts';
import { CollectionSource } from '../../src/connectors/collection/index.ts';
import { CollectSink } from '../../src/connectors/collect/index.ts';
import type { KeyedStateBackend } from '../../src/state/keyed-state-backend.ts';
import type { StateBackendType } from '../../src/state/state-backend.ts';
import { seededRandom } from '../../src/coordinator/fault-injector.ts';
import { runCollecting, uniqueId } from '../fixtures/helpers.ts';
import { keyedBackend, STATE_BACKENDS, stateBackendConfig } from '../fixtures/state-backends.ts';

for (const backendType of STATE_BACKENDS) {
function backend(start = 0, end = 127, maxParallelism = 128): KeyedStateBackend {
  return keyedBackend(backendType, { start, end }, maxParallelism);
}

describe(`${backendType} keyed state backend`, () => {
  test('value state is per key', () => {
    const b = backend();
    const s = b.getValueState(new ValueStateDescriptor<number>('v'));
    const model = new Map<string, number>();
    const rnd = seededRandom(1);
    for (let i = 0; i < 500; i++) {
      const key = `k${Math.floor(rnd() * 20)}`;
      b.setCurrentKey(key);
      assert.equal(s.value(), model.get(key));
      const next = (model.get(key) ?? 0) + i;
      s.update(next);
      model.set(key, next);
    }
  });

  test('a default value is handed out as a copy: mutating it changes no other key', () => {
    const b = backend();
    const s = b.getValueState(new ValueStateDescriptor<{ n: number }>('v', { defaultValue: { n: 0 } }));
    for (const [key, expected] of [['a', 1], ['a', 2], ['b', 1], ['c', 1], ['b', 2]] as const) {
      b.setCurrentKey(key);
      const v = s.value()!;
      v.n++;
      s.update(v);
      assert.equal(v.n, expected, `key ${key}`);
    }
    b.setCurrentKey('never-written');
    assert.deepEqual(s.value(), { n: 0 });
  });

  test('keysOf lists the keys (as the user gave them) holding an entry of one state, cleared ones not', () => {
    const b = backend();
    const v = b.getValueState(new ValueStateDescriptor<number>('v'));
    const other = b.getValueState(new ValueStateDescriptor<number>('other'));
    const keys: Array<string | number | [string, number]> = ['a', 'b', 7, ['c', 1]];
    for (const k of keys) {
      b.setCurrentKey(k);
      v.update(1);
    }
    b.setCurrentKey('only-other');
    other.update(1);
    b.setCurrentKey('b');
    v.clear();
    const listed = b.keysOf('v').map((k) => JSON.stringify(k)).sort();
    assert.deepEqual(listed, ['a', 7, ['c', 1]].map((k) => JSON.stringify(k)).sort());
    assert.deepEqual(b.keysOf('unknown'), []);
  });

  test('keyed state outside of a keyed record is an error naming the state', () => {
    const b = backend();
    const s = b.getValueState(new ValueStateDescriptor<number>('lonely'));
    assert.throws(() => s.value(), (e: unknown) => e instanceof KeyedStateError && e.stateName === 'lonely' && /lonely/.test(e.message) && e.unrecoverable);
  });

  test('a key outside the subtask\'s key groups is an error naming the key and the ranges', () => {
    const b = backend(0, 63);
    let outside = 0;
    while (keyGroupFor(`k${outside}`, 128) <= 63) outside++;
    const key = `k${outside}`;
    assert.throws(
      () => b.setCurrentKey(key),
      (e: unknown) => e instanceof KeyedStateError && e.message.includes(JSON.stringify(key)) && e.message.includes(`key group ${keyGroupFor(key, 128)}`) && e.message.includes('0..63'),
    );
  });

  test('a value folder folds per key, and refuses a key of another subtask as setCurrentKey does', () => {
    const b = backend(0, 63);
    const fold = b.valueFolder(new ValueStateDescriptor<number>('sum'), (x, y) => x + y);
    let inside = 0;
    while (keyGroupFor(`k${inside}`, 128) > 63) inside++;
    let outside = 0;
    while (keyGroupFor(`k${outside}`, 128) <= 63) outside++;
    const key = `k${inside}`;
    assert.equal(fold(key, 2), 2);
    assert.equal(fold(key, 3), 5);
    b.setCurrentKey(key);
    assert.equal(b.getValueState(new ValueStateDescriptor<number>('sum')).value(), 5, 'the folded value is the key\'s state');
    const wrong = `k${outside}`;
    assert.throws(
      () => fold(wrong, 1),
      (e: unknown) => e instanceof KeyedStateError && e.message.includes(JSON.stringify(wrong)) && e.message.includes(`key group ${keyGroupFor(wrong, 128)}`) && e.message.includes('0..63'),
    );
    assert.equal(b.currentKey, key, 'folding does not change the current key');
  });

  test('one name is one state: the same kind shares it, another kind is an error', () => {
    const b = backend();
    const first = b.getValueState(new ValueStateDescriptor<number>('shared'));
    const second = b.getValueState(new ValueStateDescriptor<number>('shared'));
    b.setCurrentKey('x');
    first.update(5);
    assert.equal(second.value(), 5);
    assert.throws(() => b.getListState(new ListStateDescriptor<number>('shared')), KeyedStateError);
  });
});
}

// ---- through running jobs ----

/** Runs `fn` keyed by `key` at parallelism 3 behind a single-subtask source (so per-key order holds). */
async function runKeyed<I extends { key: string }, O>(inputs: I[], fn: KeyedProcessFunction<string, I, O>, backendType: StateBackendType): Promise<O[]> {
  const id = uniqueId('keyed-state');
  const job = defineJob((env) => {
    env.setParallelism(3);
    env
      .fromSource(new CollectionSource(inputs), { name: 'Source', uid: 'source', parallelism: 1 })
      .keyBy((r) => r.key)
      .process(fn, { name: 'Stateful', uid: 'stateful' })
      .sinkTo(new CollectSink<O>(id), { name: 'Sink', uid: 'sink' });
  });
  const { result, records } = await runCollecting<O>(id, () => executeJob({ job, config: stateBackendConfig(backendType) }));
  assert.equal(result.status, 'FINISHED', result.error?.message);
  return records;
}

interface Op {
  key: string;
  seq: number;
  op: string;
  value: number;
  sub: string;
}

/** Seeded operations over a few dozen keys; `ops` weights the kinds of operation. */
function operations(seed: number, n: number, ops: Array<[string, number]>): Op[] {
  const rnd = seededRandom(seed);
  const total = ops.reduce((a, [, w]) => a + w, 0);
  return Array.from({ length: n }, (_, seq) => {
    let r = rnd() * total;
    let op = ops[0]![0];
    for (const [name, w] of ops) {
      if (r < w) {
        op = name;
        break;
      }
      r -= w;
    }
    return { key: `key-${Math.floor(rnd() * 30)}`, seq, op, value: Math.floor(rnd() * 100) - 20, sub: `s${Math.floor(rnd() * 6)}` };
  });
}

/** Groups outputs by key, in arrival order: per key, the order of processing. */
function byKey<O extends { key: string }>(records: O[]): Map<string, O[]> {
  const m = new Map<string, O[]>();
  for (const r of records) {
    let list = m.get(r.key);
    if (!list) m.set(r.key, (list = []));
    list.push(r);
  }
  return new Map([...m].sort(([a], [b]) => a.localeCompare(b)));
}

/** The model side: runs `step` per input with a per-key model object. */
function modelRun<M, O extends { key: string }>(inputs: Op[], init: () => M, step: (m: M, op: Op) => O): O[] {
  const models = new Map<string, M>();
  return inputs.map((op) => {
    let m = models.get(op.key);
    if (m === undefined) models.set(op.key, (m = init()));
    return step(m, op);
  });
}

for (const backendType of STATE_BACKENDS) {
describe(`keyed state through a KeyedProcessFunction (parallelism 3, ${backendType} backend)`, { timeout: 60_000 }, () => {
  test('ValueState: a count with a mutable default object, and clear()', async () => {
    interface Out {
      key: string;
      seq: number;
      count: number;
      sum: number;
      last: number | null;
    }
    const inputs = operations(11, 3000, [['add', 9], ['reset', 1]]);
    class Fn implements KeyedProcessFunction<string, Op, Out> {
      acc!: ValueState<{ count: number; sum: number }>;
      last!: ValueState<number>;
      open(ctx: RuntimeContext): void {
        this.acc = ctx.getState(new ValueStateDescriptor('acc', { defaultValue: { count: 0, sum: 0 } }));
        this.last = ctx.getState(new ValueStateDescriptor<number>('last'));
      }
      processElement(r: Op, ctx: KeyedContext<string>, out: Collector<Out>): void {
        assert.equal(ctx.getCurrentKey(), r.key);
        if (r.op === 'reset') {
          this.acc.clear();
          this.last.clear();
          out.collect({ key: r.key, seq: r.seq, count: 0, sum: 0, last: null });
          return;
        }
        const acc = this.acc.value()!;
        const last = this.last.value() ?? null;
        acc.count++;
        acc.sum += r.value;
        this.acc.update(acc);
        this.last.update(r.value);
        out.collect({ key: r.key, seq: r.seq, count: acc.count, sum: acc.sum, last });
      }
    }
    const got = await runKeyed(inputs, new Fn(), backendType);
    const expected = modelRun(inputs, () => ({ count: 0, sum: 0, last: null as number | null }), (m, r): Out => {
      if (r.op === 'reset') {
        Object.assign(m, { count: 0, sum: 0, last: null });
        return { key: r.key, seq: r.seq, count: 0, sum: 0, last: null };
      }
      const last = m.last;
      m.count++;
      m.sum += r.value;
      m.last = r.value;
      return { key: r.key, seq: r.seq, count: m.count, sum: m.sum, last };
    });
    assert.deepEqual(byKey(got), byKey(expected));
  });

  test('ListState: add, addAll, update and clear', async () => {
    interface Out {
      key: string;
      seq: number;
      list: number[];
    }
    const inputs = operations(12, 3000, [['add', 6], ['addAll', 2], ['update', 1], ['clear', 1]]);
    class Fn implements KeyedProcessFunction<string, Op, Out> {
      list!: ListState<number>;
      open(ctx: RuntimeContext): void {
        this.list = ctx.getListState(new ListStateDescriptor<number>('list'));
      }
      processElement(r: Op, _ctx: KeyedContext<string>, out: Collector<Out>): void {
        if (r.op === 'add') this.list.add(r.value);
        else if (r.op === 'addAll') this.list.addAll([r.value, r.value + 1, r.value + 2]);
        else if (r.op === 'update') this.list.update(this.list.get().filter((v) => v % 2 === 0));
        else this.list.clear();
        out.collect({ key: r.key, seq: r.seq, list: [...this.list.get()] });
      }
    }
    const got = await runKeyed(inputs, new Fn(), backendType);
    const expected = modelRun(inputs, () => ({ list: [] as number[] }), (m, r): Out => {
      if (r.op === 'add') m.list.push(r.value);
      else if (r.op === 'addAll') m.list.push(r.value, r.value + 1, r.value + 2);
      else if (r.op === 'update') m.list = m.list.filter((v) => v % 2 === 0);
      else m.list = [];
      return { key: r.key, seq: r.seq, list: [...m.list] };
    });
    assert.deepEqual(byKey(got), byKey(expected));
  });

  test('MapState: put, get, remove, contains, iteration and clear', async () => {
    interface Out {
      key: string;
      seq: number;
      entries: Array<[string, number]>;
      had: boolean;
      before: number | null;
      empty: boolean;
    }
    const inputs = operations(13, 3000, [['put', 6], ['remove', 3], ['clear', 1]]);
    class Fn implements KeyedProcessFunction<string, Op, Out> {
      map!: MapState<string, number>;
      open(ctx: RuntimeContext): void {
        this.map = ctx.getMapState(new MapStateDescriptor<string, number>('map'));
      }
      processElement(r: Op, _ctx: KeyedContext<string>, out: Collector<Out>): void {
        const had = this.map.contains(r.sub);
        const before = this.map.get(r.sub) ?? null;
        if (r.op === 'put') this.map.put(r.sub, (before ?? 0) + r.value);
        else if (r.op === 'remove') this.map.remove(r.sub);
        else this.map.clear();
        const entries = [...this.map.entries()].sort(([a], [b]) => a.localeCompare(b));
        assert.deepEqual([...this.map.keys()].sort(), entries.map(([k]) => k));
        assert.deepEqual([...this.map.values()].sort(), entries.map(([, v]) => v).sort());
        out.collect({ key: r.key, seq: r.seq, entries, had, before, empty: this.map.isEmpty() });
      }
    }
    const got = await runKeyed(inputs, new Fn(), backendType);
    const expected = modelRun(inputs, () => new Map<string, number>(), (m, r): Out => {
      const had = m.has(r.sub);
      const before = m.get(r.sub) ?? null;
      if (r.op === 'put') m.set(r.sub, (before ?? 0) + r.value);
      else if (r.op === 'remove') m.delete(r.sub);
      else m.clear();
      return { key: r.key, seq: r.seq, entries: [...m].sort(([a], [b]) => a.localeCompare(b)), had, before, empty: m.size === 0 };
    });
    assert.deepEqual(byKey(got), byKey(expected));
  });

  test('ReducingState: a running maximum and a running sum, with clear()', async () => {
    interface Out {
      key: string;
      seq: number;
      max: number | null;
      sum: number | null;
    }
    const inputs = operations(14, 3000, [['add', 12], ['clear', 1]]);
    class Fn implements KeyedProcessFunction<string, Op, Out> {
      max!: ReducingState<number>;
      sum!: ReducingState<number>;
      open(ctx: RuntimeContext): void {
        this.max = ctx.getReducingState(new ReducingStateDescriptor<number>('max', (a, b) => Math.max(a, b)));
        this.sum = ctx.getReducingState(new ReducingStateDescriptor<number>('sum', (a, b) => a + b));
      }
      processElement(r: Op, _ctx: KeyedContext<string>, out: Collector<Out>): void {
        if (r.op === 'clear') {
          this.max.clear();
          this.sum.clear();
        } else {
          this.max.add(r.value);
          this.sum.add(r.value);
        }
        out.collect({ key: r.key, seq: r.seq, max: this.max.get() ?? null, sum: this.sum.get() ?? null });
      }
    }
    const got = await runKeyed(inputs, new Fn(), backendType);
    const expected = modelRun(inputs, () => ({ values: [] as number[] }), (m, r): Out => {
      if (r.op === 'clear') m.values = [];
      else m.values.push(r.value);
      const empty = m.values.length === 0;
      return { key: r.key, seq: r.seq, max: empty ? null : Math.max(...m.values), sum: empty ? null : m.values.reduce((a, b) => a + b, 0) };
    });
    assert.deepEqual(byKey(got), byKey(expected));
  });

  test('AggregatingState: a running average over an accumulator object, with clear()', async () => {
    interface Out {
      key: string;
      seq: number;
      avg: number | null;
    }
    const inputs = operations(15, 3000, [['add', 12], ['clear', 1]]);
    class Fn implements KeyedProcessFunction<string, Op, Out> {
      avg!: AggregatingState<number, number>;
      open(ctx: RuntimeContext): void {
        this.avg = ctx.getAggregatingState(
          new AggregatingStateDescriptor<number, { sum: number; count: number }, number>('avg', {
            createAccumulator: () => ({ sum: 0, count: 0 }),
            add: (v, acc) => {
              // Mutates and returns the accumulator, as Flink's AggregateFunction may.
              acc.sum += v;
              acc.count++;
              return acc;
            },
            getResult: (acc) => acc.sum / acc.count,
          }),
        );
      }
      processElement(r: Op, _ctx: KeyedContext<string>, out: Collector<Out>): void {
        if (r.op === 'clear') this.avg.clear();
        else this.avg.add(r.value);
        out.collect({ key: r.key, seq: r.seq, avg: this.avg.get() ?? null });
      }
    }
    const got = await runKeyed(inputs, new Fn(), backendType);
    const expected = modelRun(inputs, () => ({ values: [] as number[] }), (m, r): Out => {
      if (r.op === 'clear') m.values = [];
      else m.values.push(r.value);
      return { key: r.key, seq: r.seq, avg: m.values.length === 0 ? null : m.values.reduce((a, b) => a + b, 0) / m.values.length };
    });
    assert.deepEqual(byKey(got), byKey(expected));
  });

  test('two keyed operators with a state of the same name keep separate state', async () => {
    const inputs = operations(16, 600, [['add', 1]]);
    const id = uniqueId('two-operators');
    const counter = (name: string): KeyedProcessFunction<string, Op, Op & { count: number }> => ({
      open(this: { c?: ValueState<number> }, ctx: RuntimeContext) {
        this.c = ctx.getState(new ValueStateDescriptor<number>(name));
      },
      processElement(this: { c: ValueState<number> }, r: Op, _ctx: KeyedContext<string>, out: Collector<Op & { count: number }>) {
        const c = (this.c.value() ?? 0) + 1;
        this.c.update(c);
        out.collect({ ...r, count: c });
      },
    } as KeyedProcessFunction<string, Op, Op & { count: number }>);
    const job = defineJob((env) => {
      env.setParallelism(2);
      env
        .fromSource(new CollectionSource(inputs), { uid: 'source', parallelism: 1 })
        .keyBy((r) => r.key)
        .process(counter('count'), { uid: 'first' })
        .keyBy((r) => r.key)
        .process(counter('count'), { uid: 'second' })
        .sinkTo(new CollectSink<Op & { count: number }>(id), { uid: 'sink' });
    });
    const { result, records } = await runCollecting<Op & { count: number }>(id, () => executeJob({ job, config: stateBackendConfig(backendType) }));
    assert.equal(result.status, 'FINISHED', result.error?.message);
    // Each operator counted every record once: the second sees counts 1..n per key, not 2, 4, ...
    const n = new Map<string, number>();
    for (const r of inputs) n.set(r.key, (n.get(r.key) ?? 0) + 1);
    for (const [key, list] of byKey(records)) assert.deepEqual(list.map((r) => r.count), Array.from({ length: n.get(key)! }, (_, i) => i + 1), key);
  });
});
}
