import { defineJob, executeJob, ValueStateDescriptor, type ValueState, type RuntimeContext } from '../src/index.ts';
import { CollectionSource } from '../src/connectors/collection/index.ts';
import { CollectSink, CollectedRecords } from '../src/connectors/collect/index.ts';
const keys = Array.from({ length: 300 }, (_, i) => `k${i % 30}`);
const job = defineJob((env) => {
  env.setParallelism(3);
  env.fromSource(new CollectionSource(keys), { parallelism: 1 })
    .keyBy((k) => k)
    .process<{ key: string; subtask: number; count: number }>({
      subtask: -1,
      count: undefined as unknown as ValueState<number>,
      open(ctx: RuntimeContext) { this.subtask = ctx.subtaskIndex; this.count = ctx.getState(new ValueStateDescriptor<number>('c')); },
      processElement(k: string, _ctx, out) { const c = (this.count.value() ?? 0) + 1; this.count.update(c); out.collect({ key: k, subtask: this.subtask, count: c }); },
    } as any, { uid: 'p' })
    .sinkTo(new CollectSink('shared'));
});
const col = new CollectedRecords<{ key: string; subtask: number; count: number }>('shared');
const r = await executeJob({ job });
console.log(r.status, r.error?.message);
const recs = await col.close(2000);
console.log(new Set(recs.map((x) => x.subtask)), recs.slice(0, 5));
