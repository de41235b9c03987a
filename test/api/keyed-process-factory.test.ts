import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob, executeJob, ValueStateDescriptor } from '../../src/index.ts';
import type { Collector, KeyedContext, KeyedProcessFunction, RuntimeContext, ValueState } from '../../src/index.ts';
import { CollectionSource } from '../../src/connectors/collection/index.ts';
import { CollectSink, CollectedRecords } from '../../src/connectors/collect/index.ts';

/** A class with ES #private fields: only a factory can give each parallel instance its own. */
class CountPerKey implements KeyedProcessFunction<string, string, string> {
  #count!: ValueState<number>;
  #subtask = -1;
  open(ctx: RuntimeContext): void {
    this.#count = ctx.getState(new ValueStateDescriptor<number>('count'));
    this.#subtask = ctx.subtaskIndex;
  }
  processElement(value: string, _ctx: KeyedContext<string>, out: Collector<string>): void {
    const n = (this.#count.value() ?? 0) + 1;
    this.#count.update(n);
    out.collect(`${value}:${n}:${this.#subtask}`);
  }
}

test('process() takes a factory: each parallel instance gets its own function object', async () => {
  const words = Array.from({ length: 400 }, (_, i) => `k${i % 23}`);
  const collected = new CollectedRecords<string>('keyed-process-factory');
  const result = await executeJob({
    job: defineJob((env) => {
      env.setParallelism(3);
      env
        .fromSource(new CollectionSource(words), { uid: 'src' })
        .keyBy((w) => w)
        .process(() => new CountPerKey(), { uid: 'count' })
        .sinkTo(new CollectSink<string>('keyed-process-factory'), { uid: 'sink' });
    }),
  });
  assert.equal(result.status, 'FINISHED', result.error?.message);
  const out = await collected.close();
  const expected = new Map<string, number>();
  for (const w of words) expected.set(w, (expected.get(w) ?? 0) + 1);
  const finals = new Map<string, number>();
  const subtasks = new Map<string, Set<string>>();
  for (const line of out) {
    const [w, n, s] = line.split(':') as [string, string, string];
    finals.set(w, Math.max(finals.get(w) ?? 0, Number(n)));
    (subtasks.get(w) ?? subtasks.set(w, new Set()).get(w)!).add(s);
  }
  assert.deepEqual(Object.fromEntries(finals), Object.fromEntries(expected));
  for (const [w, s] of subtasks) assert.equal(s.size, 1, `${w} was counted by one instance`);
  assert.ok(new Set([...subtasks.values()].flatMap((s) => [...s])).size > 1, 'several instances were used');
});
