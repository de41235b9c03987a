// A restored state meets the job's descriptor: its stored serializer snapshot (from the state
// file's handle) against the descriptor's. Compatible as-is, migrated (int -> bigint, a nullable
// struct field added, undeclared -> declared through an upgrade function), or a
// StateMigrationError naming operator uid, state name and both serializers.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { msgpackSerializer, StateMigrationError, Types, ValueStateDescriptor, type TypeInfo } from '../../src/index.ts';
import { readKeyedStateFile, writeKeyedStateFile } from '../../src/checkpoint/keyed-state-file.ts';
import { resolveCompatibility } from '../../src/serialization/resolve-compatibility.ts';
import { HeapKeyedStateBackend } from '../../src/state/heap-keyed-state-backend.ts';
import type { Key } from '../../src/state/key-group.ts';
import { makeTempDir, removeDir } from '../fixtures/recovery-helpers.ts';

let dir: string;
let files = 0;
before(() => {
  dir = makeTempDir('state-conversion');
});
after(() => removeDir(dir));

function backend(): HeapKeyedStateBackend {
  return new HeapKeyedStateBackend({ start: 0, end: 127 }, 128, 'counts', () => 'the test backend');
}

/** A backend restored from a state file that a job with `descriptor` wrote for `values`. */
async function restoredFrom(descriptor: ValueStateDescriptor<any>, values: ReadonlyMap<Key, unknown>): Promise<HeapKeyedStateBackend> {
  const a = backend();
  const s = a.getValueState(descriptor);
  for (const [k, v] of values) {
    a.setCurrentKey(k);
    s.update(v);
  }
  const path = join(dir, `f${files++}`);
  const captured = a.snapshot();
  const handle = await writeKeyedStateFile(path, captured);
  for (const t of captured.tables) t.snapshot.release();
  const b = backend();
  const file = readKeyedStateFile(handle, (f) => f, b.keyGroupRange);
  for (const kg of file.keyGroups) file.readKeyGroup(kg, (info, g) => b.restoreTarget(info, g));
  return b;
}

function valuesOf(b: HeapKeyedStateBackend, descriptor: ValueStateDescriptor<any>, keys: Iterable<Key>): Map<Key, unknown> {
  const state = b.getValueState(descriptor);
  const out = new Map<Key, unknown>();
  for (const k of keys) {
    b.setCurrentKey(k);
    out.set(k, state.value());
  }
  return out;
}

const counts = new Map<Key, number>([['a', 1], ['b', -(2 ** 40)], ['c', 0]]);

describe('restoring state into a changed descriptor', () => {
  test('the same declared type: as-is', async () => {
    const b = await restoredFrom(new ValueStateDescriptor('count', { type: Types.int }), counts);
    assert.deepStrictEqual(valuesOf(b, new ValueStateDescriptor('count', { type: Types.int }), counts.keys()), counts);
  });

  test('int -> bigint and int -> double migrate every value', async () => {
    const b = await restoredFrom(new ValueStateDescriptor('count', { type: Types.int }), counts);
    assert.deepStrictEqual(valuesOf(b, new ValueStateDescriptor('count', { type: Types.bigint }), counts.keys()), new Map([...counts].map(([k, v]) => [k, BigInt(v)])));
    const c = await restoredFrom(new ValueStateDescriptor('count', { type: Types.int }), counts);
    assert.deepStrictEqual(valuesOf(c, new ValueStateDescriptor('count', { type: Types.double }), counts.keys()), counts);
  });

  test('a struct field added as nullable reads as null; a removed one is dropped', async () => {
    const V1 = Types.struct({ n: Types.int, old: Types.string });
    const V2 = Types.struct({ n: Types.bigint, note: Types.nullable(Types.string) });
    const b = await restoredFrom(new ValueStateDescriptor('count', { type: V1 }), new Map([['a', { n: 3, old: 'x' }]]));
    assert.deepStrictEqual(valuesOf(b, new ValueStateDescriptor('count', { type: V2 }), ['a']), new Map([['a', { n: 3n, note: null }]]));
  });

  test('string -> int: StateMigrationError naming uid, state and both serializers', async () => {
    const b = await restoredFrom(new ValueStateDescriptor('count', { type: Types.string }), new Map([['a', '1']]));
    assert.throws(
      () => b.getValueState(new ValueStateDescriptor('count', { type: Types.int })),
      (e: unknown) => {
        assert.ok(e instanceof StateMigrationError, String(e));
        assert.equal(e.uid, 'counts');
        assert.equal(e.stateName, 'count');
        assert.deepEqual(e.stored, { kind: 'weir-types', version: 1, schema: Types.string });
        assert.deepEqual(e.current, { kind: 'weir-types', version: 1, schema: Types.int });
        assert.equal(e.path, '$');
        assert.match(
          e.message,
          /^state 'count' of operator uid 'counts' was written with serializer weir-types v1 string, the job now uses weir-types v1 int, which cannot read it at \$: stored string cannot become int; declare a type the stored one migrates to/,
        );
        return true;
      },
    );
  });

  test('a new required struct field is incompatible, and the message says where', async () => {
    const b = await restoredFrom(new ValueStateDescriptor('count', { type: Types.struct({ n: Types.int }) }), new Map([['a', { n: 1 }]]));
    assert.throws(() => b.getValueState(new ValueStateDescriptor('count', { type: Types.struct({ n: Types.int, lang: Types.string }) })), (e: unknown) => {
      assert.ok(e instanceof StateMigrationError);
      assert.equal(e.path, '$.lang');
      assert.match(e.message, /weir-types v1 struct\{n: int\}, the job now uses weir-types v1 struct\{n: int, lang: string\}, which cannot read it at \$\.lang: a new field of type string/);
      return true;
    });
  });

  test('undeclared state that now declares a type: incompatible, unless an upgrade function converts (and its results must fit)', async () => {
    const loose = new Map<Key, unknown>([['a', 1], ['b', 2]]);
    const b = await restoredFrom(new ValueStateDescriptor<unknown>('count'), loose);
    assert.throws(() => b.getValueState(new ValueStateDescriptor('count', { type: Types.int })), (e: unknown) =>
      e instanceof StateMigrationError && /was written with serializer msgpack v1, the job now uses weir-types v1 int, which cannot read it at \$: stored any cannot become int/.test(e.message));

    const c = await restoredFrom(new ValueStateDescriptor<unknown>('count'), loose);
    const upgraded = new ValueStateDescriptor('count', { type: Types.int, upgrade: (v, from) => (v as number) * 10 + from });
    assert.deepStrictEqual(valuesOf(c, upgraded, loose.keys()), new Map([['a', 11], ['b', 21]]));

    const d = await restoredFrom(new ValueStateDescriptor<unknown>('count'), loose);
    assert.throws(() => d.getValueState(new ValueStateDescriptor('count', { type: Types.int, upgrade: (v) => String(v) as unknown as number })), (e: unknown) => {
      assert.ok(e instanceof StateMigrationError, String(e));
      assert.match(e.message, /^state 'count' of operator uid 'counts': the upgrade function made a value for key string "(a|b)" that weir-types v1 int cannot write: cannot serialize \$: expected int, got string "(1|2)"$/);
      return true;
    });
  });

  test('declared -> undeclared always reads (any value is a msgpack value)', async () => {
    const b = await restoredFrom(new ValueStateDescriptor('count', { type: Types.map(Types.string, Types.bigint) }), new Map([['a', new Map([['x', 5n]])]]));
    assert.deepStrictEqual(valuesOf(b, new ValueStateDescriptor<unknown>('count'), ['a']), new Map([['a', new Map([['x', 5n]])]]));
  });

  test('msgpack versions still go through the upgrade function, told the stored version', async () => {
    const b = await restoredFrom(new ValueStateDescriptor<unknown>('count', { serializer: msgpackSerializer(1) }), counts);
    assert.throws(() => b.getValueState(new ValueStateDescriptor<unknown>('count', { serializer: msgpackSerializer(2) })), /written with serializer version 1, the job now declares version 2, and its descriptor has no upgrade function/);
    const c = await restoredFrom(new ValueStateDescriptor<unknown>('count', { serializer: msgpackSerializer(1) }), counts);
    const values = valuesOf(c, new ValueStateDescriptor<unknown>('count', { serializer: msgpackSerializer(2), upgrade: (v, from) => ({ v, from }) }), counts.keys());
    assert.deepStrictEqual(values, new Map([...counts].map(([k, v]) => [k, { v, from: 1 }])));
  });

  test('random pairs of types: what resolveCompatibility allows restores, the rest fails naming both', async () => {
    const types: TypeInfo[] = [Types.int, Types.bigint, Types.double, Types.timestamp, Types.string, Types.nullable(Types.int), Types.array(Types.int), Types.any];
    const sample = (t: TypeInfo): unknown => (t.kind === 'bigint' ? 4n : t.kind === 'string' ? 's' : t.kind === 'array' ? [4] : 4);
    for (const from of types) {
      for (const to of types) {
        const b = await restoredFrom(new ValueStateDescriptor<any>('x', { type: from as never }), new Map([['k', sample(from)]]));
        const verdict = resolveCompatibility({ kind: 'weir-types', version: 1, schema: from }, { kind: 'weir-types', version: 1, schema: to });
        if (verdict === 'incompatible') {
          assert.throws(() => b.getValueState(new ValueStateDescriptor<any>('x', { type: to as never })), StateMigrationError, `${JSON.stringify(from)} -> ${JSON.stringify(to)}`);
        } else {
          const got = valuesOf(b, new ValueStateDescriptor<any>('x', { type: to as never }), ['k']).get('k');
          assert.ok(got !== undefined, `${JSON.stringify(from)} -> ${JSON.stringify(to)} restores`);
        }
      }
    }
  });
});
