// typedFormat: values of a declared type in weir's binary encoding, exact both ways; a value
// that does not fit the type is refused on write.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Types } from '../../src/index.ts';
import { typedFormat } from '../../src/formats/index.ts';

test('a struct with bigints, bytes, maps and nullable fields reads back equal; the bytes are independent copies', () => {
  const f = typedFormat(Types.struct({ id: Types.bigint, name: Types.string, tags: Types.map(Types.string, Types.int), raw: Types.bytes, note: Types.nullable(Types.string), at: Types.timestamp }));
  const a = { id: -(2n ** 63n), name: 'ü', tags: new Map([['x', 1]]), raw: new Uint8Array([1, 2, 3]), note: null, at: 1_733_370_000_000 };
  const b = { ...a, id: 5n, name: 'second' };
  const ba = f.serialize(a);
  const bb = f.serialize(b);
  assert.deepEqual(f.deserialize(ba), a);
  assert.deepEqual(f.deserialize(bb), b);
});

test('a value that does not fit its type is refused on write, naming the field', () => {
  const f = typedFormat(Types.struct({ n: Types.int }));
  assert.throws(() => f.serialize({ n: 'x' } as unknown as { n: number }), /n/);
  assert.throws(() => f.deserialize(new Uint8Array([1, 2, 3, 4, 5])));
});
