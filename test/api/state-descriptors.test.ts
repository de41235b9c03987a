// State descriptors with declared types: the type becomes the descriptor's serializer (the
// compiled codec, whose snapshot records the schema); undeclared state keeps the msgpack default.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  AggregatingStateDescriptor,
  ListStateDescriptor,
  MapStateDescriptor,
  msgpackSerializer,
  ReducingStateDescriptor,
  Types,
  ValueStateDescriptor,
} from '../../src/index.ts';
import { snapshotOf } from '../../src/serialization/serializer-snapshot.ts';

describe('state descriptors', () => {
  test('a declared type is written by its compiled codec, and its snapshot records the schema', () => {
    const count = new ValueStateDescriptor('count', { type: Types.int });
    assert.deepEqual(count.type, Types.int);
    assert.equal(count.serializer.id, 'weir-types');
    assert.deepEqual(snapshotOf(count.serializer), { kind: 'weir-types', version: 1, schema: { kind: 'int' } });
    assert.equal(count.serializer.deserialize(count.serializer.serialize(-7)), -7);
  });

  test('list, map, reducing and aggregating state declare what they store', () => {
    const Click = Types.struct({ url: Types.string, at: Types.timestamp });
    assert.deepEqual(new ListStateDescriptor('clicks', { elementType: Click }).type, Types.array(Click));
    assert.deepEqual(new MapStateDescriptor('totals', { keyType: Types.string, valueType: Types.bigint }).type, Types.map(Types.string, Types.bigint));
    assert.deepEqual(new MapStateDescriptor('keys only', { keyType: Types.string }).type, Types.map(Types.string, Types.any));
    assert.deepEqual(new ReducingStateDescriptor('max', Math.max, { type: Types.double }).type, Types.double);
    const avg = { createAccumulator: () => [0, 0] as [number, number], add: (v: number, a: [number, number]): [number, number] => [a[0] + v, a[1] + 1], getResult: (a: [number, number]) => a[0] / a[1] };
    assert.deepEqual(new AggregatingStateDescriptor('avg', avg, { accumulatorType: Types.tuple(Types.double, Types.int) }).type, Types.tuple(Types.double, Types.int));
  });

  test('undeclared state keeps the msgpack serializer; a serializer of its own is kept; both a type and a serializer is an error', () => {
    const plain = new ValueStateDescriptor<number>('plain');
    assert.equal(plain.type, undefined);
    assert.deepEqual(snapshotOf(plain.serializer), { kind: 'msgpack', version: 1, schema: { kind: 'any' } });
    assert.deepEqual(snapshotOf(new ValueStateDescriptor<number>('v2', { serializer: msgpackSerializer(2) }).serializer), { kind: 'msgpack', version: 2, schema: { kind: 'any' } });
    assert.throws(() => new ValueStateDescriptor('both', { type: Types.int, serializer: msgpackSerializer() }), /state descriptor 'both' declares both a type and a serializer/);
  });
});
