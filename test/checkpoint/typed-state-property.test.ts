// Property test: random declared types of the Types vocabulary (nullable, array, map, struct,
// tuple, bigint, bytes, timestamp, json, any, nested up to depth 4) and random values of them,
// as keyed state: through the state file (written by the serializers, read into a fresh backend,
// claimed by the same descriptors), and through a real checkpoint of a small job restored into
// the job at another parallelism. Every restored value deep-equals what the value should decode
// as; undeclared states (the schemaless codec) carry what MessagePack carries.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createJobMaster, defineJob, ValueStateDescriptor, type JobDefinition, type KeyedProcessFunction, type Sink, type ValueState } from '../../src/index.ts';
import { CollectionSource } from '../../src/connectors/collection/index.ts';
import { readKeyedStateFile, writeKeyedStateFile } from '../../src/checkpoint/keyed-state-file.ts';
import { describeType } from '../../src/serialization/describe-type.ts';
import type { TypeInfo } from '../../src/serialization/type-info.ts';
import { HeapKeyedStateBackend } from '../../src/state/heap-keyed-state-backend.ts';
import type { Key } from '../../src/state/key-group.ts';
import { stateKey } from '../../src/state/state-key.ts';
import { makeTempDir, removeDir } from '../fixtures/recovery-helpers.ts';
import { expectedDecoding, Random, randomAny, randomString, randomType, randomValue } from '../serialization/random-values.ts';

let dir: string;
before(() => {
  dir = makeTempDir('typed-state-property');
});
after(() => removeDir(dir));

/** Keys of every kind a keyBy may return (composite ones included). */
function randomKey(r: Random): Key {
  switch (r.int(0, 5)) {
    case 0:
      return randomString(r);
    case 1:
      return r.int(-1e6, 1e6);
    case 2:
      return r.next() * 1e9;
    case 3:
      return BigInt(r.int(-1e9, 1e9)) * 1_000_000_007n;
    case 4:
      return r.pick([true, false, null]);
    default:
      return [randomString(r), r.int(0, 9)];
  }
}

/** A descriptor per type; a null type is an undeclared state. */
function descriptors(types: ReadonlyArray<TypeInfo | null>): Array<ValueStateDescriptor<unknown>> {
  return types.map((t, i) => (t === null ? new ValueStateDescriptor<unknown>(`s${i}`) : new ValueStateDescriptor<unknown>(`s${i}`, { type: t as never })));
}

const valueOf = (r: Random, t: TypeInfo | null): unknown => (t === null ? randomAny(r) : randomValue(r, t));
const expected = (t: TypeInfo | null, v: unknown): unknown => (t === null ? v : expectedDecoding(t, v));
const what = (t: TypeInfo | null): string => (t === null ? 'undeclared' : describeType(t));

describe('typed keyed state, property', () => {
  test('random types and values round-trip through the state file', async () => {
    const r = new Random(20_261_201);
    for (let round = 0; round < 25; round++) {
      const types = Array.from({ length: 10 }, () => (r.chance(0.15) ? null : randomType(r)));
      const ds = descriptors(types);
      const a = new HeapKeyedStateBackend({ start: 0, end: 127 }, 128, 'typed', () => 'backend a');
      const states = ds.map((d) => a.getValueState(d));
      // By the key as tables hold it (equal composite keys are one key), with the key itself.
      const model = types.map(() => new Map<Key, { key: Key; value: unknown }>());
      for (let i = 0; i < 60; i++) {
        const key = randomKey(r);
        a.setCurrentKey(key);
        types.forEach((t, j) => {
          if (r.chance(0.3)) return;
          const v = valueOf(r, t);
          if (v === undefined) return; // update(undefined) clears
          states[j]!.update(v);
          model[j]!.set(stateKey(key), { key, value: expected(t, v) });
        });
      }
      const captured = a.snapshot();
      const handle = await writeKeyedStateFile(join(dir, `round-${round}`), captured);
      for (const t of captured.tables) t.snapshot.release();

      // Rescaled: two readers of half the key groups each.
      for (const range of [{ start: 0, end: 63 }, { start: 64, end: 127 }]) {
        const b = new HeapKeyedStateBackend(range, 128, 'typed', () => 'backend b');
        const file = readKeyedStateFile(handle, (f) => f, range);
        for (const kg of file.keyGroups) file.readKeyGroup(kg, (info, g) => b.restoreTarget(info, g));
        const restored = descriptors(types).map((d) => b.getValueState(d));
        for (const [j, m] of model.entries()) {
          for (const { key, value: v } of m.values()) {
            let mine = true;
            try {
              b.setCurrentKey(key);
            } catch {
              mine = false; // another reader's key group
            }
            if (mine) assert.deepStrictEqual(restored[j]!.value(), v, `round ${round}, state s${j} (${what(types[j]!)}), key ${String(key)}`);
          }
        }
      }
    }
  });

  test('random types and values round-trip through a checkpoint of a job, restored at another parallelism', { timeout: 120_000 }, async () => {
    const r = new Random(7_331);
    for (let round = 0; round < 3; round++) {
      const types = Array.from({ length: 12 }, () => (r.chance(0.15) ? null : randomType(r)));
      const KEYS = 40;
      const records = Array.from({ length: 200 }, (_, i) => ({ key: `k${i % KEYS}`, values: types.map((t) => valueOf(r, t)) }));
      const last = new Map<string, unknown[]>();
      for (const rec of records) {
        const prev = last.get(rec.key) ?? types.map(() => undefined);
        last.set(rec.key, rec.values.map((v, j) => (v === undefined ? prev[j] : expected(types[j]!, v))));
      }

      const sinkA = new MemorySink();
      const a = await createJobMaster({
        job: typedJob(types, records, 2, sinkA),
        config: { 'restart-strategy.type': 'none', 'execution.checkpointing.dir': join(dir, `job-${round}`) },
        retainCheckpointsOnFinish: true,
      });
      const ra = await a.run();
      assert.equal(ra.status, 'FINISHED', ra.error?.message);
      assert.ok(ra.latestCheckpoint, 'the final checkpoint is retained');

      const probes = Array.from({ length: KEYS }, (_, i) => ({ key: `k${i}`, values: null }));
      const sinkB = new MemorySink();
      const b = await createJobMaster({
        job: typedJob(types, probes, 3, sinkB, 'probe'),
        config: { 'restart-strategy.type': 'none' },
        restoreFrom: ra.latestCheckpoint,
        allowNonRestoredState: true,
      });
      const rb = await b.run();
      assert.equal(rb.status, 'FINISHED', rb.error?.message);
      assert.equal(sinkB.seen.length, KEYS);
      for (const { key, values } of sinkB.seen) {
        const want = last.get(key)!;
        types.forEach((t, j) => assert.deepStrictEqual(values[j], want[j], `round ${round}, key ${key}, state s${j} (${what(t)})`));
      }
    }
  });
});

interface Rec {
  readonly key: string;
  readonly values: unknown[] | null;
}

class MemorySink implements Sink<{ key: string; values: unknown[] }> {
  readonly seen: Array<{ key: string; values: unknown[] }> = [];
  createWriter() {
    return { write: (v: { key: string; values: unknown[] }) => void this.seen.push(v) };
  }
}

/**
 * records -> keyBy(key) -> 'typed' (a value state per type): a record with values updates every
 * state it has a value for; a probe (values null) emits what the states hold.
 */
function typedJob(types: ReadonlyArray<TypeInfo | null>, records: readonly Rec[], parallelism: number, sink: MemorySink, sourceUid = 'source'): JobDefinition {
  return defineJob((env) => {
    env.setParallelism(parallelism);
    env.enableCheckpointing({ interval: 50 });
    const fn: KeyedProcessFunction<string, Rec, { key: string; values: unknown[] }> & { states?: Array<ValueState<unknown>> } = {
      open(ctx) {
        this.states = descriptors(types).map((d) => ctx.getState(d));
      },
      processElement(rec, _ctx, out) {
        if (rec.values === null) {
          out.collect({ key: rec.key, values: this.states!.map((s) => s.value()) });
          return;
        }
        rec.values.forEach((v, j) => {
          if (v !== undefined) this.states![j]!.update(v);
        });
      },
    };
    env
      .fromSource(new CollectionSource(records), { uid: sourceUid })
      .keyBy((rec) => rec.key)
      .process(fn, { name: 'Typed', uid: 'typed' })
      .sinkTo(sink, { uid: 'sink' });
  });
}
