// The JSON of the change formats: integers beyond 2^53 survive both ways as bigints, everything
// else reads as JSON.parse reads it, and values JSON cannot carry are refused naming their path.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseExact, stringifyExact } from '../../src/formats/exact-json.ts';
import { FormatError } from '../../src/formats/index.ts';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

test('integers beyond 2^53 read back as bigints, anywhere; other text as JSON.parse reads it', () => {
  const text = '{"a":[1,-9223372036854775808,{"b":18446744073709551615}],"s":"12345678901234567890 in a string \\" \\\\","f":1.5e300,"n":null,"t":true,"e":{},"l":[],"u":"\\u00fc"}';
  const v = parseExact('t', text) as Record<string, unknown>;
  assert.deepEqual(v, { a: [1, -9223372036854775808n, { b: 18446744073709551615n }], s: '12345678901234567890 in a string " \\', f: 1.5e300, n: null, t: true, e: {}, l: [], u: 'ü' });
  const plain = '{"x":[1,2.5,"9007199254740991"],"y":9007199254740991}';
  assert.deepEqual(parseExact('t', plain), JSON.parse(plain));
  assert.deepEqual(parseExact('t', ' [ 12345678901234567 , 0.12345678901234567 ] '), [12345678901234567n, 0.12345678901234567]);
});

test('stringify: bigints exact, bytes through the given encoding, undefined fields left out, a round trip equal', () => {
  const value = { id: -(2n ** 63n), raw: new Uint8Array([1, 255]), s: 'é"\n', n: -0.5, skip: undefined, list: [null, true, 2n ** 64n] };
  const text = stringifyExact('t', value, hex);
  assert.equal(text, '{"id":-9223372036854775808,"raw":"01ff","s":"é\\"\\n","n":-0.5,"list":[null,true,18446744073709551616]}');
  assert.deepEqual(parseExact('t', text), { id: -(2n ** 63n), raw: '01ff', s: 'é"\n', n: -0.5, list: [null, true, 2n ** 64n] });
});

test('stringify: a value JSON.stringify can write comes out the same as one that needs the exact walk', () => {
  const row = { id: 7, name: 'ann "a"', price: '12.50', at: null, tags: ['x', 'y'], nested: { deep: [1, { z: false }] }, gone: undefined };
  const plain = stringifyExact('t', row, hex);
  assert.equal(plain, JSON.stringify(row));
  // The same with a bigint (the exact walk): every other field written alike.
  assert.equal(stringifyExact('t', { ...row, id: 7n }, hex), plain);
  assert.equal(stringifyExact('t', { ...row, when: new Date(0) }, hex), plain.slice(0, -1) + ',"when":"1970-01-01T00:00:00.000Z"}');
  assert.equal(stringifyExact('t', [1, undefined, 'a'], hex), '[1,null,"a"]');
  assert.equal(stringifyExact('t', undefined, hex), 'null');
});

test('refusals name the format and where: NaN, a function, text that is not JSON', () => {
  assert.throws(() => stringifyExact('fmt', { a: [{ b: Number.POSITIVE_INFINITY }] }, hex), (e: unknown) => e instanceof FormatError && e.path === 'a[0].b' && /^fmt:/.test(e.message));
  assert.throws(() => stringifyExact('fmt', { f: () => 1 }, hex), (e: unknown) => e instanceof FormatError && e.path === 'f');
  assert.throws(() => parseExact('fmt', '{"a":12345678901234567,}'), (e: unknown) => e instanceof FormatError && e.reason === 'NOT_JSON');
  assert.throws(() => parseExact('fmt', '[12345678901234567] x'), (e: unknown) => e instanceof FormatError && e.reason === 'NOT_JSON');
});
