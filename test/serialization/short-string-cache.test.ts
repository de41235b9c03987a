import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DataInput } from '../../src/serialization/data-input.ts';
import { DataOutput } from '../../src/serialization/data-output.ts';

function encode(strings: readonly string[]): Uint8Array {
  const out = DataOutput.growable(1024);
  for (const s of strings) out.writeString(s);
  // Room after the last string: the cache reads 12 bytes from a string's start whatever its length.
  out.writeRaw(new Uint8Array(16));
  return out.written();
}

function decode(bytes: Uint8Array, n: number): string[] {
  const input = new DataInput(bytes);
  return Array.from({ length: n }, () => input.readString());
}

test('short strings decode exactly, whatever their length and neighbours', () => {
  // Strings that share bytes, differ only in length, or hold a NUL, must not be confused.
  const strings = ['', 'a', 'ab', 'ab\u0000', 'abc', 'abcd', 'abcde', 'abcdefgh', 'abcdefghi', 'abcdefghijkl', 'abcdefghijklm', 'ba', 'é', 'ké', 'x'.repeat(12), 'x'.repeat(11)];
  const bytes = encode([...strings, ...strings]);
  assert.deepEqual(decode(bytes, strings.length * 2), [...strings, ...strings]);
});

test('the same short ASCII bytes decode to the same string, so Maps find it without comparing characters', () => {
  const words = Array.from({ length: 500 }, (_, i) => `w${i}`);
  const first = decode(encode(words), words.length);
  const again = decode(encode(words), words.length);
  assert.deepEqual(again, words);
  // Identity cannot be observed for strings; a Map keyed by them holds one entry per word.
  const m = new Map<string, number>();
  for (const w of [...first, ...again]) m.set(w, (m.get(w) ?? 0) + 1);
  assert.equal(m.size, 500);
  assert.ok([...m.values()].every((n) => n === 2));
});

test('a string at the very end of a buffer (fewer than 12 bytes left) still decodes', () => {
  const out = DataOutput.growable(16);
  out.writeString('tail');
  assert.deepEqual(decode(out.written(), 1), ['tail']);
});
