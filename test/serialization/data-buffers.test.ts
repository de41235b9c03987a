// DataOutput and DataInput on their own: varints and zigzag ints at their edges, doubles,
// bigints, UTF-8 strings on both the short (JS loop) and long (encodeInto) paths, SEGMENT_FULL
// in a bounded segment, growth of a growable buffer, and the reader's bounds errors.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DataInput } from '../../src/serialization/data-input.ts';
import { DataOutput } from '../../src/serialization/data-output.ts';
import { SEGMENT_FULL } from '../../src/serialization/segment-full.ts';
import { SerializationError } from '../../src/serialization/serialization-error.ts';

function roundTrip<T>(write: (out: DataOutput, v: T) => void, read: (inp: DataInput) => T, values: readonly T[]): T[] {
  const out = DataOutput.growable(16);
  for (const v of values) write(out, v);
  const inp = new DataInput(out.written());
  const back = values.map(() => read(inp));
  assert.equal(inp.remaining, 0, 'every byte read');
  return back;
}

const EDGE_INTS = [0, 1, -1, 63, -64, 64, -65, 127, 128, 2 ** 30 - 1, -(2 ** 30), 2 ** 30, -(2 ** 30) - 1, 2 ** 31, -(2 ** 31), 2 ** 32 + 5, -(2 ** 40) - 3, 2 ** 52, -(2 ** 52), 2 ** 52 + 1, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER];

describe('DataOutput / DataInput', () => {
  test('zigzag ints round-trip at every width, small magnitudes in one byte', () => {
    assert.deepEqual(roundTrip((o, v) => o.writeInt(v), (i) => i.readInt(), EDGE_INTS), EDGE_INTS);
    for (const v of [0, -1, 1, 63, -64]) {
      const out = DataOutput.growable();
      out.writeInt(v);
      assert.equal(out.pos, 1, `${v} takes one byte`);
    }
    const out = DataOutput.growable();
    out.writeInt(-0);
    assert.ok(Object.is(new DataInput(out.written()).readInt(), 0), '-0 is written as 0');
  });

  test('ints and varints read the same at the very end of the input as with bytes to spare (fast and slow paths)', () => {
    for (const v of [...EDGE_INTS, 2 ** 27 - 1, -(2 ** 27), 2 ** 27, 8191, -8192]) {
      const out = DataOutput.growable();
      out.writeInt(v);
      const exact = out.written().slice();
      const padded = new Uint8Array(exact.length + 8);
      padded.set(exact);
      assert.equal(new DataInput(exact).readInt(), v, `${v} at the end`);
      assert.equal(new DataInput(padded).readInt(), v, `${v} with slack`);
      assert.throws(() => new DataInput(exact.subarray(0, exact.length - 1)).readInt(), SerializationError, `${v} truncated`);
    }
    for (const n of [0, 127, 128, 16383, 16384, 2 ** 21, 2 ** 31 - 1, 2 ** 31, Number.MAX_SAFE_INTEGER]) {
      const out = DataOutput.growable();
      out.writeVarUint(n);
      assert.equal(new DataInput(out.written()).readVarUint(), n);
    }
  });

  test('unsigned varints up to 2^53-1', () => {
    const values = [0, 127, 128, 16383, 16384, 2 ** 31 - 1, 2 ** 31, 2 ** 35 + 7, Number.MAX_SAFE_INTEGER];
    assert.deepEqual(roundTrip((o, v) => o.writeVarUint(v), (i) => i.readVarUint(), values), values);
  });

  test('doubles keep NaN, -0 and infinities; bigints the int64 edges', () => {
    const doubles = [0, -0, 1.5, NaN, Infinity, -Infinity, Number.MIN_VALUE, Number.MAX_VALUE];
    const back = roundTrip((o, v) => o.writeDouble(v), (i) => i.readDouble(), doubles);
    back.forEach((v, i) => assert.ok(Object.is(v, doubles[i]), `${doubles[i]}`));
    const bigints = [0n, -1n, 2n ** 63n - 1n, -(2n ** 63n)];
    assert.deepEqual(roundTrip((o, v) => o.writeBigInt64(v), (i) => i.readBigInt64(), bigints), bigints);
  });

  test('strings: ASCII, Latin-1, CJK, emoji, short and long', () => {
    const strings = ['', 'a', 'hello', 'héllo', '日本語テキスト', '😀 emoji 👍🏽 and 🇩🇪', 'x'.repeat(31), 'x'.repeat(32), 'é'.repeat(42), 'é'.repeat(43), '😀'.repeat(500), 'long ascii '.repeat(300)];
    assert.deepEqual(roundTrip((o, v) => o.writeString(v), (i) => i.readString(), strings), strings);
  });

  test('lone surrogates become U+FFFD on both paths, as TextEncoder writes them', () => {
    const strings = ['a\uD800b', '\uDC00', 'end\uD83D', 'x'.repeat(40) + '\uD800' + 'y'.repeat(40)];
    const back = roundTrip((o, v) => o.writeString(v), (i) => i.readString(), strings);
    assert.deepEqual(back, strings.map((s) => new TextDecoder().decode(new TextEncoder().encode(s))));
    assert.equal(back[0], 'a\uFFFDb');
  });

  test('the same string always gives the same bytes (length prefix by UTF-16 length, padded)', () => {
    const bytes = (s: string) => {
      const out = DataOutput.growable();
      out.writeString(s);
      return [...out.written()];
    };
    const long = 'a'.repeat(50);
    assert.deepEqual(bytes(long), bytes(long));
    assert.deepEqual(bytes(long).slice(0, 2), [0x80 | 50, 0], 'a padded two-byte prefix for a 50-unit string');
  });

  test('a bounded output throws SEGMENT_FULL past its limit; exact fits succeed', () => {
    const seg = new Uint8Array(new SharedArrayBuffer(16));
    const out = DataOutput.bounded(seg, 2, 12);
    out.writeString('abcdefghi'); // 1 + 9 = 10 bytes: exactly to the limit
    assert.equal(out.pos, 12);
    assert.throws(() => out.writeByte(1), (e) => e === SEGMENT_FULL);
    out.reset(seg, 0, 16);
    assert.throws(() => out.writeString('é'.repeat(20)), (e) => e === SEGMENT_FULL, 'a string longer than the room left');
    out.reset(seg, 0, 16);
    out.writeString('ééééééé'); // 15 bytes fit, though the worst case (22) would not
    assert.equal(new DataInput(seg, 0, out.pos).readString(), 'ééééééé');
  });

  test('SEGMENT_FULL is one preallocated object without a fresh stack', () => {
    const out = DataOutput.bounded(new Uint8Array(1), 0, 1);
    out.writeByte(1);
    let first: unknown;
    let second: unknown;
    try { out.writeByte(2); } catch (e) { first = e; }
    try { out.writeDouble(2); } catch (e) { second = e; }
    assert.equal(first, second);
    assert.ok(Object.isFrozen(first));
  });

  test('a growable output doubles and keeps what was written', () => {
    const out = DataOutput.growable(16);
    for (let i = 0; i < 1000; i++) out.writeInt(i * 1000);
    out.writeString('z'.repeat(5000));
    const inp = new DataInput(out.written());
    for (let i = 0; i < 1000; i++) assert.equal(inp.readInt(), i * 1000);
    assert.equal(inp.readString(), 'z'.repeat(5000));
  });

  test('reading past the end or reading garbage is a SerializationError naming the offset', () => {
    const check = (bytes: number[], read: (i: DataInput) => unknown, offset: number, pattern: RegExp) =>
      assert.throws(() => read(new DataInput(new Uint8Array(bytes))), (e: unknown) => {
        assert.ok(e instanceof SerializationError);
        assert.equal(e.offset, offset);
        assert.match(e.message, pattern);
        return true;
      });
    check([], (i) => i.readByte(), 0, /needs 1 byte, 0 left at offset 0/);
    check([1, 2, 3], (i) => (i.readByte(), i.readDouble()), 1, /needs 8 bytes, 2 left at offset 1/);
    check([5, 97, 98], (i) => i.readString(), 1, /a string of 5 bytes with 2 left/);
    check([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff], (i) => i.readVarUint(), 0, /longer than 8 bytes/);
    check([7], (i) => i.readBoolean(), 0, /a boolean byte is 7/);
    check([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01], (i) => i.readInt(), 0, /beyond 2\^53-1/);
    check([200, 1], (i) => i.readLength(1), 0, /a length of 200 with 0 bytes left/);
  });
});
