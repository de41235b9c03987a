// Streams nobody declared a type for: the type is inferred from the first record, records of
// that shape use the compiled codec, and the first that does not fit switches the stream to the
// schemaless codec. The reader decodes record for record, before and after the switch, from one
// buffer and from segments, and from any segment on its own.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DataInput } from '../../src/serialization/data-input.ts';
import { DataOutput } from '../../src/serialization/data-output.ts';
import { describeType } from '../../src/serialization/describe-type.ts';
import { describeValue } from '../../src/serialization/describe-value.ts';
import { inferType } from '../../src/serialization/infer-type.ts';
import { InferringCodec, INFERRED, SCHEMA, SCHEMALESS } from '../../src/serialization/inferring-codec.ts';
import { SegmentReader } from '../../src/serialization/segment-reader.ts';
import { SegmentWriter } from '../../src/serialization/segment-writer.ts';
import { SerializationError } from '../../src/serialization/serialization-error.ts';

/** 50 records of one shape, then a new field, then number -> string, then object -> array, then anything. */
function changingStream(): unknown[] {
  const records: unknown[] = [];
  for (let i = 0; i < 50; i++) records.push({ word: `w${i}`, count: i, at: { x: i * 0.5, tags: ['a', 'b'] } });
  records.push({ word: 'new field', count: 1, at: { x: 1, tags: [] }, extra: true });
  for (let i = 0; i < 20; i++) records.push({ word: `w${i}`, count: i, at: { x: i, tags: ['c'] } });
  records.push({ word: 'number to string', count: 'many', at: { x: 1, tags: [] } });
  records.push({ word: 'object to array', count: 2, at: [1, 2, 3] });
  records.push(new Map([['a', 1n]]), 'just a string', null, [{ nested: new Set([1]) }], { word: 'back to shape', count: 3, at: { x: 2, tags: [] } });
  return records;
}

function roundTripGrowable(records: readonly unknown[]): { decoded: unknown[]; writer: InferringCodec; bytes: Uint8Array } {
  const writer = new InferringCodec();
  const out = DataOutput.growable();
  for (const r of records) writer.encode(r, out);
  const reader = new InferringCodec();
  const input = new DataInput(out.written());
  const decoded = records.map(() => reader.decode(input));
  assert.equal(input.remaining, 0);
  return { decoded, writer, bytes: out.written().slice() };
}

describe('inferType', () => {
  test('numbers are doubles, objects structs, uniform arrays arrays, the rest any', () => {
    assert.equal(describeType(inferType({ word: 'a', count: 1, ok: true })), 'struct{word: string, count: double, ok: boolean}');
    assert.equal(describeType(inferType({ p: { x: 1, y: 2 }, tags: ['a'], empty: [], mixed: [1, 'a'], none: null })), 'struct{p: struct{x: double, y: double}, tags: array<string>, empty: array<any>, mixed: any, none: any}');
    for (const v of [new Map(), new Set(), new Date(0), 1n, undefined, null, new Uint8Array(1), new (class Row {})(), Object.create(null)]) {
      assert.equal(inferType(v).kind, 'any', describeValue(v));
    }
    assert.equal(describeType(inferType([{ a: 1 }, { a: 2 }])), 'array<struct{a: double}>');
    assert.equal(describeType(inferType([{ a: 1 }, { b: 2 }])), 'any');
  });
});

describe('InferringCodec', () => {
  test('a stream whose shape changes midway decodes record for record', () => {
    const records = changingStream();
    const { decoded, writer } = roundTripGrowable(records);
    assert.deepStrictEqual(decoded, records);
    assert.equal(writer.fallback.schemaless, true);
    assert.match(writer.fallback.misfit?.message ?? '', /^cannot serialize \$: expected struct\{word: string, count: double, at: struct\{x: double, tags: array<string>\}\}, got object \{word, count, at, extra\} \(not exactly that shape\)/);
  });

  test('records of the inferred shape carry one tag byte, the schema once', () => {
    const records = Array.from({ length: 100 }, (_, i) => ({ word: `w${i % 10}`, count: i }));
    const { bytes, writer } = roundTripGrowable(records);
    assert.equal(writer.fallback.schemaless, false);
    assert.equal(bytes[0], SCHEMA);
    const schema = DataOutput.growable();
    schema.writeString(JSON.stringify(writer.inferred));
    const first = 1 + schema.pos + 3 + 8; // tag, schema, word (length + 2 chars), count (a double)
    assert.equal(bytes[first], INFERRED);
    assert.equal(bytes.length, first + 99 * (1 + 3 + 8));
  });

  test('a misfit record is rewound: the schemaless record replaces it, not follows it', () => {
    const writer = new InferringCodec();
    const out = DataOutput.growable();
    writer.encode({ a: 'x', b: 1 }, out);
    const before = out.pos;
    writer.encode({ a: 'y', b: 'not a number' }, out);
    assert.equal(out.buf[before], SCHEMALESS);
    const reader = new InferringCodec();
    const input = new DataInput(out.written());
    assert.deepStrictEqual([reader.decode(input), reader.decode(input)], [{ a: 'x', b: 1 }, { a: 'y', b: 'not a number' }]);
  });

  test('a first record that is not a plain object sends the stream schemaless from the start', () => {
    const records = [new Map([[1, 'a']]), { a: 1 }, 'x'];
    const { decoded, bytes, writer } = roundTripGrowable(records);
    assert.deepStrictEqual(decoded, records);
    assert.equal(bytes[0], SCHEMALESS);
    assert.equal(writer.inferred, undefined);
  });

  for (const size of [40, 256, 32 * 1024]) {
    test(`through ${size}-byte segments, with rewinds and spanning`, () => {
      const records = [...changingStream(), ...Array.from({ length: 30 }, (_, i) => ({ big: 'x'.repeat(i * 50), i }))];
      const reader = new SegmentReader(new InferringCodec());
      const decoded: unknown[] = [];
      const writer = new SegmentWriter(new InferringCodec(), {
        acquire: () => new Uint8Array(size),
        emit: (segment, used) => reader.read(segment, used, (v) => decoded.push(v)),
      });
      for (const r of records) writer.write(r);
      writer.flush();
      assert.deepStrictEqual(decoded, records);
    });
  }

  test('every segment that starts with records decodes on its own (a fresh reader, as after a restore)', () => {
    const records = Array.from({ length: 2000 }, (_, i) => ({ word: `word-${i}`, count: i, nested: { ok: i % 2 === 0 } }));
    const segments: Array<{ bytes: Uint8Array; first: number; count: number }> = [];
    let written = 0;
    let pending = 0;
    const counting = new SegmentReader(new InferringCodec());
    const writer = new SegmentWriter(new InferringCodec(), {
      acquire: () => new Uint8Array(1024),
      emit: (segment, used) => {
        const bytes = segment.slice(0, used);
        let count = 0;
        counting.read(bytes, used, () => count++);
        segments.push({ bytes, first: written - pending, count });
        pending -= count;
      },
    });
    for (const r of records) {
      written++;
      pending++;
      writer.write(r);
    }
    writer.flush();
    assert.ok(segments.length > 10);
    for (const { bytes, first, count } of segments) {
      const decoded: unknown[] = [];
      new SegmentReader(new InferringCodec()).read(bytes, bytes.length, (v) => decoded.push(v));
      assert.deepStrictEqual(decoded, records.slice(first, first + count));
    }
  });

  test('a value no codec can carry is an error on the inferred path too, never a silent undefined', () => {
    const writer = new InferringCodec();
    const out = DataOutput.growable();
    writer.encode({ a: 1, note: null }, out);
    assert.throws(() => writer.encode({ a: 2, note: { parse() {} } }, out), (e: unknown) => e instanceof SerializationError && e.path === '$.note.parse' && e.actual === 'function parse');
    assert.throws(() => new InferringCodec().encode(Symbol('x'), DataOutput.growable()), (e: unknown) => e instanceof SerializationError && e.actual === 'symbol Symbol(x)');
  });

  test('bytes that are not an inferred stream are SerializationErrors, and a schema frame is data, not code', () => {
    const decode = (bytes: number[]) => new InferringCodec().decode(new DataInput(new Uint8Array(bytes)));
    assert.throws(() => decode([INFERRED, 1]), (e: unknown) => e instanceof SerializationError && /an inferred record before any schema/.test(e.message));
    assert.throws(() => decode([0]), /a record tag 0 at offset 0/);
    const evil = JSON.stringify({ kind: 'struct', fields: [{ name: 'a', type: { kind: 'string"); throw 1; ("' } }] });
    const out = DataOutput.growable();
    out.writeByte(SCHEMA);
    out.writeString(evil);
    assert.throws(() => new InferringCodec().decode(new DataInput(out.written())), (e: unknown) => e instanceof SerializationError && /a schema that is not a TypeInfo \(not a TypeInfo at \$\.fields\[0\]\.type: unknown kind/.test(e.message));
  });
});

describe('InferringCodec { adapt: true } (state files)', () => {
  /** Tag bytes of each record in order (the record bodies are skipped by decoding them). */
  function tags(records: readonly unknown[], starts: readonly number[] = [0]): { tags: number[]; decoded: unknown[] } {
    const writer = new InferringCodec({ adapt: true });
    const out = DataOutput.growable();
    const at: number[] = [];
    records.forEach((r, i) => {
      if (starts.includes(i)) writer.startSegment();
      at.push(out.pos);
      writer.encode(r, out);
    });
    const bytes = out.written();
    const reader = new InferringCodec();
    const input = new DataInput(bytes);
    const decoded = records.map(() => reader.decode(input));
    assert.equal(input.remaining, 0);
    return { tags: at.map((p) => bytes[p]!), decoded };
  }

  test('a misfit infers again and announces the new schema; only values no schema fits go schemaless, one by one', () => {
    const records = changingStream();
    // A segment for the odd values at the end, so that the bound on schemas does not count.
    const { tags: t, decoded } = tags(records, [0, records.length - 5]);
    assert.deepStrictEqual(decoded, records);
    assert.equal(t[0], SCHEMA);
    assert.ok(t.slice(1, 50).every((x) => x === INFERRED));
    assert.equal(t[50], SCHEMA, 'the new field: a new schema');
    assert.equal(t[51], SCHEMA, 'and back: the old shape again');
    assert.ok(t.slice(52, 71).every((x) => x === INFERRED));
    // Map, string, null, array of a Set, then the shape again.
    assert.deepEqual(t.slice(-5), [SCHEMALESS, SCHEMA, SCHEMALESS, SCHEMA, SCHEMA]);
  });

  test('re-inference is bounded per segment; startSegment repeats the schema and allows it again', () => {
    const records = Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? { a: i } : { b: String(i) }));
    const { tags: t, decoded } = tags(records, [0, 20]);
    assert.deepStrictEqual(decoded, records);
    const firstSegment = t.slice(0, 20);
    assert.equal(firstSegment.filter((x) => x === SCHEMA).length, 8, 'at most 8 schemas in a segment');
    assert.ok(firstSegment.slice(8).every((x) => x === INFERRED || x === SCHEMALESS));
    assert.equal(t[20], SCHEMA, 'a segment starts with its schema');
  });

  test('undefined and null first: values after them are still inferred', () => {
    const records = [undefined, null, 1, 2, 3, 4n];
    const { tags: t, decoded } = tags(records);
    assert.deepStrictEqual(decoded, records);
    assert.deepEqual(t, [SCHEMALESS, SCHEMALESS, SCHEMA, INFERRED, INFERRED, SCHEMALESS]);
  });
});
