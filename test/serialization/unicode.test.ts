// Strings are UTF-8 on the wire. Well-formed strings (emoji, CJK, combining marks, astral
// planes) come back as they went in, through every codec. A lone surrogate cannot be UTF-8: it
// becomes U+FFFD, as TextEncoder and Buffer write it, whichever path the string takes (the
// short JS loop, encodeInto, MessagePack): one behaviour, not one per length. The exception is
// Types.json, whose JSON.stringify escapes a lone surrogate as \uD800 text, which survives.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { compileCodec } from '../../src/serialization/compile-codec.ts';
import { DataInput } from '../../src/serialization/data-input.ts';
import { DataOutput } from '../../src/serialization/data-output.ts';
import { InferringCodec } from '../../src/serialization/inferring-codec.ts';
import type { Codec } from '../../src/serialization/codec.ts';
import { Types } from '../../src/serialization/types.ts';

function roundTrip<T>(codec: Codec<T>, value: T): T {
  const out = DataOutput.growable();
  codec.encode(value, out);
  return codec.decode(new DataInput(out.written()));
}

const WELL_FORMED = ['😀', '👩‍👩‍👧‍👦 family', '🇩🇪🇫🇷', 'e\u0301 combining', '𝄞 music', '日本語', 'ǅ', '\u0000nul', '\uFFFF', 'ascii'.repeat(20) + '😀', '😀'.repeat(100)];
const LONE = ['\uD800', 'a\uDC00b', 'x'.repeat(40) + '\uDBFF', '\uDC00\uD800', '😀'.slice(0, 1) + 'tail'];
const replaced = (s: string) => s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');

describe('unicode strings', () => {
  const codecs: Array<[string, Codec<unknown>]> = [
    ['Types.string', compileCodec(Types.string) as Codec<unknown>],
    ['Types.json', compileCodec(Types.json) as Codec<unknown>],
    ['Types.any', compileCodec(Types.any)],
    ['a struct field', { type: Types.any, encode: (v, o) => compileCodec(Types.struct({ s: Types.string })).encode({ s: v as string }, o), decode: (i) => compileCodec(Types.struct({ s: Types.string })).decode(i).s }],
  ];
  for (const [name, codec] of codecs) {
    test(`${name}: well-formed strings come back unchanged`, () => {
      for (const s of WELL_FORMED) assert.equal(roundTrip(codec, s), s);
    });
    const json = name === 'Types.json';
    test(`${name}: lone surrogates ${json ? 'survive as JSON escapes' : 'become U+FFFD'}`, () => {
      for (const s of LONE) assert.equal(roundTrip(codec, s), json ? s : replaced(s), JSON.stringify(s));
    });
  }

  test('inferred records: the same', () => {
    const writer = new InferringCodec();
    const reader = new InferringCodec();
    const out = DataOutput.growable();
    const records = [...WELL_FORMED, ...LONE].map((s) => ({ s }));
    for (const r of records) writer.encode(r, out);
    const input = new DataInput(out.written());
    for (const r of records) assert.deepStrictEqual(reader.decode(input), { s: replaced(r.s) });
  });

  test('byte length: 4 bytes for an astral character, 3 for a replaced lone surrogate', () => {
    const size = (s: string) => {
      const out = DataOutput.growable();
      out.writeString(s);
      return out.pos - 1;
    };
    assert.equal(size('😀'), 4);
    assert.equal(size('\uD800'), 3);
    assert.equal(size('é'), 2);
  });
});
