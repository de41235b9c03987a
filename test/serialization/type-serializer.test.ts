// serializerFor as a TypeSerializer (serialize/deserialize/copy) and as a codec for many values
// in one buffer; serializer snapshots; resolveCompatibility's rules; and a restore that reads
// state with the stored schema and migrates it to the current one.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { msgpackSerializer } from '../../src/api/serializer.ts';
import { DataInput } from '../../src/serialization/data-input.ts';
import { DataOutput } from '../../src/serialization/data-output.ts';
import { IncompatibleSerializerError } from '../../src/serialization/incompatible-serializer-error.ts';
import { explainCompatibility, migrationFor, resolveCompatibility } from '../../src/serialization/resolve-compatibility.ts';
import { restoreSerializer, serializerFor } from '../../src/serialization/serializer-for.ts';
import { msgpackSnapshot, snapshotOf, type SerializerSnapshot } from '../../src/serialization/serializer-snapshot.ts';
import { SerializationError } from '../../src/serialization/serialization-error.ts';
import type { TypeInfo } from '../../src/serialization/type-info.ts';
import { Types } from '../../src/serialization/types.ts';

const Account = Types.struct({ owner: Types.string, balance: Types.int, history: Types.array(Types.double), tags: Types.map(Types.string, Types.bytes) });

const snap = (schema: TypeInfo): SerializerSnapshot => serializerFor(schema).snapshot();

describe('serializerFor', () => {
  test('is a TypeSerializer: serialize, deserialize, copy', () => {
    const s = serializerFor(Account);
    assert.equal(s.id, 'weir-types');
    assert.equal(s.version, 1);
    const value = { owner: 'ana', balance: -5, history: [1.5, NaN], tags: new Map([['k', new Uint8Array([1, 2])]]) };
    const bytes = s.serialize(value);
    assert.ok(bytes instanceof Uint8Array && bytes.buffer.byteLength === bytes.length, 'bytes of its own, not a view of a scratch buffer');
    assert.deepStrictEqual(s.deserialize(bytes), value);
    const copy = s.copy(value);
    assert.deepStrictEqual(copy, value);
    copy.history.push(3);
    copy.tags.get('k')![0] = 9;
    assert.deepStrictEqual(value.history, [1.5, NaN]);
    assert.equal(value.tags.get('k')![0], 1);
  });

  test('deserialize rejects bytes after the value', () => {
    const s = serializerFor(Types.int);
    assert.throws(() => s.deserialize(new Uint8Array([2, 0])), (e: unknown) => e instanceof SerializationError && /1 bytes after the value at offset 1/.test(e.message));
  });

  test('encode/decode write many entries into one buffer', () => {
    const s = serializerFor(Types.tuple(Types.string, Types.int));
    const out = DataOutput.growable();
    for (let i = 0; i < 1000; i++) s.encode([`k${i}`, i], out);
    const input = new DataInput(out.written());
    for (let i = 0; i < 1000; i++) assert.deepStrictEqual(s.decode(input), [`k${i}`, i]);
  });

  test('snapshots are plain JSON; today\'s msgpack serializer has one too', () => {
    const stored = JSON.parse(JSON.stringify(serializerFor(Account).snapshot())) as SerializerSnapshot;
    assert.deepStrictEqual(stored, { kind: 'weir-types', version: 1, schema: Account });
    assert.deepStrictEqual(snapshotOf(msgpackSerializer(3)), { kind: 'msgpack', version: 3, schema: { kind: 'any' } });
    assert.deepStrictEqual(snapshotOf(serializerFor(Types.string)), { kind: 'weir-types', version: 1, schema: { kind: 'string' } });
    assert.deepStrictEqual(msgpackSnapshot(), { kind: 'msgpack', version: 1, schema: { kind: 'any' } });
  });
});

describe('resolveCompatibility', () => {
  const WordCount = Types.struct({ word: Types.string, count: Types.int });
  const cases: Array<[string, TypeInfo, TypeInfo, string]> = [
    ['the same schema', WordCount, Types.struct({ word: Types.string, count: Types.int }), 'compatible-as-is'],
    ['a struct field added as nullable', WordCount, Types.struct({ word: Types.string, count: Types.int, note: Types.nullable(Types.string) }), 'compatible-after-migration'],
    ['a struct field removed', WordCount, Types.struct({ word: Types.string }), 'compatible-after-migration'],
    ['struct fields reordered', WordCount, Types.struct({ count: Types.int, word: Types.string }), 'compatible-after-migration'],
    ['int widened to double', Types.int, Types.double, 'compatible-after-migration'],
    ['int widened to bigint', Types.int, Types.bigint, 'compatible-after-migration'],
    ['int as timestamp', Types.int, Types.timestamp, 'compatible-after-migration'],
    ['T to nullable<T>', Types.string, Types.nullable(Types.string), 'compatible-after-migration'],
    ['anything to any', WordCount, Types.any, 'compatible-after-migration'],
    ['JSON-safe struct to json', WordCount, Types.json, 'compatible-after-migration'],
    ['widening inside arrays and maps', Types.map(Types.string, Types.array(Types.int)), Types.map(Types.string, Types.array(Types.double)), 'compatible-after-migration'],
    ['string to int', Types.string, Types.int, 'incompatible'],
    ['double narrowed to int', Types.double, Types.int, 'incompatible'],
    ['nullable<T> to T', Types.nullable(Types.string), Types.string, 'incompatible'],
    ['any to a declared type', Types.any, WordCount, 'incompatible'],
    ['a double to json (NaN is not JSON)', Types.double, Types.json, 'incompatible'],
    ['a new required field', WordCount, Types.struct({ word: Types.string, count: Types.int, lang: Types.string }), 'incompatible'],
    ['a tuple of another length', Types.tuple(Types.int), Types.tuple(Types.int, Types.int), 'incompatible'],
    ['struct to array', WordCount, Types.array(Types.string), 'incompatible'],
  ];
  for (const [name, from, to, expected] of cases) {
    test(`${name}: ${expected}`, () => assert.equal(resolveCompatibility(snap(from), snap(to)), expected));
  }

  test('incompatible reports say where and why', () => {
    const report = explainCompatibility(snap(WordCount), snap(Types.struct({ word: Types.string, count: Types.string })));
    assert.equal(report.path, '$.count');
    assert.equal(report.reason, 'stored int cannot become string');
    const added = explainCompatibility(snap(WordCount), snap(Types.struct({ word: Types.string, count: Types.int, lang: Types.string })));
    assert.equal(added.path, '$.lang');
    assert.match(added.reason ?? '', /add it as Types.nullable/);
    assert.throws(() => migrationFor(snap(Types.string), snap(Types.int)), (e: unknown) =>
      e instanceof IncompatibleSerializerError && e.unrecoverable && e.path === '$' && e.message === 'state written by weir-types v1 string cannot be read by weir-types v1 int: at $: stored string cannot become int');
  });

  test('between kinds and versions', () => {
    const types = (schema: TypeInfo, version = 1): SerializerSnapshot => ({ kind: 'weir-types', version, schema });
    assert.equal(resolveCompatibility(msgpackSnapshot(1), msgpackSnapshot(1)), 'compatible-as-is');
    assert.equal(resolveCompatibility(msgpackSnapshot(1), msgpackSnapshot(2)), 'compatible-after-migration');
    assert.equal(resolveCompatibility(msgpackSnapshot(), types(WordCount)), 'incompatible');
    assert.equal(resolveCompatibility(msgpackSnapshot(), types(Types.any)), 'compatible-after-migration');
    assert.equal(resolveCompatibility(types(WordCount), msgpackSnapshot()), 'compatible-after-migration');
    assert.equal(resolveCompatibility(types(WordCount, 2), types(WordCount)), 'incompatible');
    assert.equal(resolveCompatibility({ kind: 'json', version: 1, schema: Types.any }, msgpackSnapshot()), 'incompatible');
    assert.equal(resolveCompatibility({ kind: 'json', version: 1, schema: Types.any }, { kind: 'json', version: 2, schema: Types.any }), 'compatible-after-migration');
  });
});

describe('restoring state written with an older schema', () => {
  test('read with the stored schema, then migrated to the current one', () => {
    const V1 = Types.struct({ user: Types.string, clicks: Types.int, scores: Types.map(Types.string, Types.int) });
    const V2 = Types.struct({ user: Types.string, clicks: Types.bigint, scores: Types.map(Types.string, Types.double), country: Types.nullable(Types.string) });
    // A state file of the old job: many entries in one buffer, and the snapshot in _metadata.
    const old = serializerFor(V1);
    const entries = Array.from({ length: 100 }, (_, i) => ({ user: `u${i}`, clicks: i * 7, scores: new Map([['a', i]]) }));
    const file = DataOutput.growable();
    for (const e of entries) old.encode(e, file);
    const metadata = JSON.stringify({ serializer: old.snapshot() });

    const stored = (JSON.parse(metadata) as { serializer: SerializerSnapshot }).serializer;
    const current = serializerFor(V2);
    assert.equal(resolveCompatibility(stored, current.snapshot()), 'compatible-after-migration');
    const reader = restoreSerializer(stored) as ReturnType<typeof serializerFor>;
    const migrate = migrationFor(stored, current.snapshot());
    const input = new DataInput(file.written());
    const restored = entries.map(() => migrate(reader.decode(input)) as ReturnType<typeof current.decode>);
    assert.deepStrictEqual(restored[3], { user: 'u3', clicks: 21n, scores: new Map([['a', 3]]), country: null });
    // The migrated values are values of the current type: they write and read back with it.
    for (const r of restored) assert.deepStrictEqual(current.deserialize(current.serialize(r)), r);
  });

  test('a snapshot of the msgpack serializer restores today\'s bytes', () => {
    const reader = restoreSerializer(msgpackSnapshot(1));
    assert.deepStrictEqual(reader.deserialize(msgpackSerializer().serialize({ a: [1, 2n] })), { a: [1, 2n] });
    assert.throws(() => restoreSerializer({ kind: 'custom', version: 1, schema: Types.any }), IncompatibleSerializerError);
    assert.throws(() => restoreSerializer({ kind: 'weir-types', version: 1, schema: { kind: 'nope' } as never }), /unknown kind "nope"/);
  });
});
