// Values that do not fit their declared type: each kind of bad input is a SerializationError
// whose path, expected and actual say where, what was declared and what was there; bytes that
// are not a value are a SerializationError naming the offset.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { compileCodec } from '../../src/serialization/compile-codec.ts';
import { DataInput } from '../../src/serialization/data-input.ts';
import { DataOutput } from '../../src/serialization/data-output.ts';
import { SegmentReader } from '../../src/serialization/segment-reader.ts';
import { SegmentWriter } from '../../src/serialization/segment-writer.ts';
import { SerializationError } from '../../src/serialization/serialization-error.ts';
import type { TypeInfo } from '../../src/serialization/type-info.ts';
import { Types } from '../../src/serialization/types.ts';

const WordCount = Types.struct({ word: Types.string, count: Types.int });

function encodeError(type: TypeInfo, value: unknown): SerializationError {
  try {
    compileCodec(type).encode(value, DataOutput.growable());
  } catch (e) {
    assert.ok(e instanceof SerializationError, `a SerializationError, got ${String(e)}`);
    return e;
  }
  assert.fail('encode did not throw');
}

function expectError(type: TypeInfo, value: unknown, path: string, expected: string, actual: string | RegExp): void {
  const e = encodeError(type, value);
  assert.equal(e.path, path);
  assert.equal(e.expected, expected);
  if (typeof actual === 'string') assert.equal(e.actual, actual);
  else assert.match(e.actual ?? '', actual);
  assert.match(e.message, new RegExp(`^cannot serialize ${path.replace(/[$.[\]()"]/g, '\\$&')}: expected `));
}

describe('encoding values that do not fit', () => {
  test('a string where an int is declared', () => {
    expectError(WordCount, { word: 'a', count: '3' }, '$.count', 'int', 'string "3"');
  });

  test('a missing struct field (nullable fields may be missing)', () => {
    expectError(WordCount, { word: 'a' }, '$.count', 'int', 'undefined');
    const withNote = Types.struct({ word: Types.string, note: Types.nullable(Types.string) });
    const out = DataOutput.growable();
    compileCodec(withNote).encode({ word: 'a' }, out);
    assert.deepStrictEqual(compileCodec(withNote).decode(new DataInput(out.written())), { word: 'a', note: null });
    const withExtra = Types.struct({ word: Types.string, extra: Types.any });
    const out2 = DataOutput.growable();
    compileCodec(withExtra).encode({ word: 'a' } as never, out2);
    assert.deepStrictEqual(compileCodec(withExtra).decode(new DataInput(out2.written())), { word: 'a', extra: undefined }, 'any carries undefined');
  });

  test('a TypeInfo that is not one is refused before any code is generated', () => {
    assert.throws(() => compileCodec({ kind: 'struct', fields: [{ name: 'a', type: { kind: 'strin' } }] } as never), /not a TypeInfo at \$\.fields\[0\]\.type: unknown kind "strin"/);
    assert.throws(() => Types.struct({ ['__proto__']: Types.int } as never), TypeError);
  });

  test('not a struct at all', () => {
    expectError(WordCount, null, '$', 'struct{word: string, count: int}', 'null');
    expectError(WordCount, ['a', 1], '$', 'struct{word: string, count: int}', 'array(2)');
  });

  test('a bigint beyond int64', () => {
    expectError(Types.struct({ id: Types.bigint }), { id: 2n ** 70n }, '$.id', 'bigint', 'bigint 2^70 (beyond int64)');
    expectError(Types.bigint, -(2n ** 63n) - 1n, '$', 'bigint', 'bigint -9223372036854775809 (beyond int64)');
    expectError(Types.bigint, 3n ** 50n, '$', 'bigint', 'bigint ~2^79 (beyond int64)');
    expectError(Types.bigint, 5, '$', 'bigint', 'number 5');
  });

  test('a number that is not a safe integer for Types.int', () => {
    expectError(Types.int, 2 ** 53, '$', 'int', 'number 9007199254740992 (not a safe integer)');
    expectError(Types.int, 1.5, '$', 'int', 'number 1.5');
    expectError(Types.int, NaN, '$', 'int', 'number NaN');
    expectError(Types.int, 5n, '$', 'int', 'bigint 5');
  });

  test('a function, a symbol and a cyclic object in Types.any', () => {
    const Event = Types.struct({ id: Types.int, payload: Types.any });
    expectError(Event, { id: 1, payload: { parse() {} } }, '$.payload.parse', 'any', 'function parse');
    expectError(Event, { id: 1, payload: ['x', Symbol('tag')] }, '$.payload[1]', 'any', 'symbol Symbol(tag)');
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    expectError(Event, { id: 1, payload: cyclic }, '$.payload.self', 'any', 'cyclic object');
    expectError(Types.any, () => 1, '$', 'any', 'function');
    expectError(Types.any, new Map([['k', { 'odd key': Symbol.iterator }]]), '$.get("k")["odd key"]', 'any', 'symbol Symbol(Symbol.iterator)');
  });

  test('after a bad value in Types.any the codec still works', () => {
    const codec = compileCodec(Types.any);
    assert.throws(() => codec.encode({ f() {} }, DataOutput.growable()), SerializationError);
    const out = DataOutput.growable();
    codec.encode({ ok: [1n, new Set(['s'])] }, out);
    assert.deepStrictEqual(codec.decode(new DataInput(out.written())), { ok: [1n, new Set(['s'])] });
  });

  test('paths through arrays, maps, tuples and nullables', () => {
    const Order = Types.struct({ items: Types.array(Types.struct({ sku: Types.string, count: Types.int })) });
    const items = [0, 1, 2].map((i) => ({ sku: `s${i}`, count: i }));
    expectError(Order, { items: [...items, { sku: 's3', count: 'three' }] }, '$.items[3].count', 'int', 'string "three"');
    const Totals = Types.struct({ totals: Types.map(Types.string, Types.nullable(Types.double)) });
    expectError(Totals, { totals: new Map<unknown, unknown>([['a', 1], ['b', 'x']]) }, '$.totals.get("b")', 'nullable<double>', 'string "x"');
    expectError(Totals, { totals: new Map<unknown, unknown>([['a', 1], [2, 1]]) }, '$.totals.keys()[1]', 'string', 'number 2');
    expectError(Totals, { totals: { a: 1 } }, '$.totals', 'map<string, nullable<double>>', 'object {a}');
    const Pair = Types.tuple(Types.string, Types.array(Types.boolean));
    expectError(Pair, ['a', [true, 1]], '$[1][1]', 'boolean', 'number 1');
    expectError(Pair, ['a'], '$', 'tuple[string, array<boolean>]', 'array(1)');
    expectError(Types.struct({ 'odd key': Types.int }), { 'odd key': 'x' }, '$["odd key"]', 'int', 'string "x"');
  });

  test('timestamps take numbers and valid Dates, and decode as numbers', () => {
    const codec = compileCodec(Types.array(Types.timestamp));
    const out = DataOutput.growable();
    codec.encode([0, 1718000000000, new Date(86_400_000) as unknown as number], out); // a Date is taken at run time; the declared type is what decodes
    assert.deepStrictEqual(codec.decode(new DataInput(out.written())), [0, 1718000000000, 86_400_000]);
    expectError(Types.timestamp, new Date(NaN), '$', 'timestamp', 'Date (invalid)');
    expectError(Types.timestamp, '2024-06-11', '$', 'timestamp', 'string "2024-06-11"');
    expectError(Types.timestamp, 1.5, '$', 'timestamp', 'number 1.5');
  });

  test('bytes, booleans and strings are not coerced', () => {
    expectError(Types.bytes, [1, 2], '$', 'bytes', 'array(2)');
    expectError(Types.boolean, 0, '$', 'boolean', 'number 0');
    expectError(Types.string, { toString: () => 'x' }, '$', 'string', 'object {toString}');
    expectError(Types.string, new (class Word {})(), '$', 'string', 'object of class Word');
  });

  test('Types.json rejects what JSON.stringify would silently change', () => {
    const Doc = Types.struct({ doc: Types.json });
    expectError(Doc, { doc: { a: undefined } }, '$.doc.a', 'json', 'undefined');
    expectError(Doc, { doc: [1, NaN] }, '$.doc[1]', 'json', 'number NaN');
    expectError(Doc, { doc: { at: new Date(0) } }, '$.doc.at', 'json', 'Date 1970-01-01T00:00:00.000Z');
    expectError(Doc, { doc: { n: 1n } }, '$.doc.n', 'json', 'bigint 1');
    const cyclic: unknown[] = [];
    cyclic.push(cyclic);
    expectError(Doc, { doc: cyclic }, '$.doc[0]', 'json', 'cyclic object');
    const out = DataOutput.growable();
    compileCodec(Doc).encode({ doc: { a: [1, 'x', null, { b: true }] } }, out);
    assert.deepStrictEqual(compileCodec(Doc).decode(new DataInput(out.written())), { doc: { a: [1, 'x', null, { b: true }] } });
  });

  test('exact (inferred) codecs reject extra keys and class instances that declared ones accept', () => {
    const declared = compileCodec(WordCount);
    const exact = compileCodec(WordCount, { exact: true });
    const extra = { word: 'a', count: 1, more: true };
    declared.encode(extra, DataOutput.growable()); // properties not declared are not carried
    assert.throws(() => exact.encode(extra, DataOutput.growable()), (e: unknown) => e instanceof SerializationError && e.actual === 'object {word, count, more} (not exactly that shape)');
    class WordCountRow { word = 'a'; count = 1; }
    declared.encode(new WordCountRow(), DataOutput.growable());
    assert.throws(() => exact.encode(new WordCountRow(), DataOutput.growable()), SerializationError);
    const anyField = compileCodec(Types.struct({ a: Types.any, b: Types.int }), { exact: true });
    assert.throws(() => anyField.encode({ b: 1, c: 2 } as never, DataOutput.growable()), SerializationError, 'a missing any field is not replaced by another key');
  });

  test('a failed record leaves nothing behind in a segment', () => {
    const segments: Array<[Uint8Array, number]> = [];
    const writer = new SegmentWriter(compileCodec(WordCount), { acquire: () => new Uint8Array(1024), emit: (s, used) => segments.push([s, used]) });
    writer.write({ word: 'first', count: 1 });
    assert.throws(() => writer.write({ word: 'half-written', count: 'no' } as never), SerializationError);
    writer.write({ word: 'second', count: 2 });
    writer.flush();
    const decoded: unknown[] = [];
    const reader = new SegmentReader(compileCodec(WordCount));
    for (const [s, used] of segments) reader.read(s, used, (v) => decoded.push(v));
    assert.deepStrictEqual(decoded, [{ word: 'first', count: 1 }, { word: 'second', count: 2 }]);
  });

  test('withContext adds the operator and edge, keeps the facts and the cause', () => {
    const e = encodeError(WordCount, { word: 1, count: 1 });
    const wrapped = e.withContext({ operatorUid: 'tokenize', edge: 'tokenize -> count' });
    assert.equal(wrapped.message, `operator uid 'tokenize', edge tokenize -> count: ${e.message}`);
    assert.equal(wrapped.cause, e);
    assert.deepEqual([wrapped.path, wrapped.expected, wrapped.actual, wrapped.operatorUid, wrapped.edge], ['$.word', 'string', 'number 1', 'tokenize', 'tokenize -> count']);
  });
});

describe('decoding bytes that are not a value', () => {
  test('a truncated record names the offset', () => {
    const out = DataOutput.growable();
    compileCodec(WordCount).encode({ word: 'hello', count: 300 }, out);
    const bytes = out.written().slice(0, 7);
    assert.throws(() => compileCodec(WordCount).decode(new DataInput(bytes)), (e: unknown) => e instanceof SerializationError && e.offset === 7 && /needs 1 byte, 0 left at offset 7/.test(e.message));
  });

  test('an array length larger than the bytes left is corruption, not an allocation', () => {
    const bytes = new Uint8Array([0xff, 0xff, 0xff, 0x7f, 1, 2]);
    assert.throws(() => compileCodec(Types.array(Types.double)).decode(new DataInput(bytes)), (e: unknown) => e instanceof SerializationError && /a length of 268435455 with 2 bytes left at offset 0/.test(e.message));
  });

  test('a nullable presence byte that is neither 0 nor 1', () => {
    assert.throws(() => compileCodec(Types.nullable(Types.int)).decode(new DataInput(new Uint8Array([9, 1]))), /presence byte is 9 at offset 0/);
  });
});
