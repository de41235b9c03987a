// Property test: random types (nested up to depth 4) and random values of them, thousands of
// round trips through compiled codecs, in both modes a codec is used in: one growable buffer (a
// state file) and bounded segments (the network), where small segments force SEGMENT_FULL
// rewinds and records spanning several segments. Each decoded value deep-equals what the value
// should decode as (Maps, bigints, Uint8Arrays, NaN and -0 included).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { compileCodec } from '../../src/serialization/compile-codec.ts';
import { DataInput } from '../../src/serialization/data-input.ts';
import { DataOutput } from '../../src/serialization/data-output.ts';
import { describeType } from '../../src/serialization/describe-type.ts';
import { SegmentReader } from '../../src/serialization/segment-reader.ts';
import { SegmentWriter } from '../../src/serialization/segment-writer.ts';
import type { Codec } from '../../src/serialization/codec.ts';
import { Types } from '../../src/serialization/types.ts';
import type { TypeInfo } from '../../src/serialization/type-info.ts';
import { expectedDecoding, Random, randomType, randomValue } from './random-values.ts';

const TYPES = 400;
const VALUES_PER_TYPE = 12;

interface Case {
  readonly type: TypeInfo;
  readonly values: readonly unknown[];
  readonly expected: readonly unknown[];
}

function cases(seed: number): Case[] {
  const r = new Random(seed);
  return Array.from({ length: TYPES }, () => {
    const type = randomType(r);
    const values = Array.from({ length: VALUES_PER_TYPE }, () => randomValue(r, type));
    return { type, values, expected: values.map((v) => expectedDecoding(type, v)) };
  });
}

/** Segments carved from one SharedArrayBuffer, as the network's pool would hand them out. */
function segmentPool(size: number): { acquire(): Uint8Array; emitted: Array<{ segment: Uint8Array; used: number }>; acquired: number } {
  const sab = new SharedArrayBuffer(size * 64);
  let next = 0;
  const pool = {
    acquired: 0,
    emitted: [] as Array<{ segment: Uint8Array; used: number }>,
    acquire(): Uint8Array {
      pool.acquired++;
      const segment = new Uint8Array(sab, (next++ % 64) * size, size);
      segment.fill(0xee); // garbage from an earlier use
      return segment;
    },
  };
  return pool;
}

/** Writes values through a SegmentWriter and reads each emitted segment at once (before the pool reuses it). */
function viaSegments(codec: Codec<unknown>, values: readonly unknown[], size: number): { decoded: unknown[]; segments: number; spans: number } {
  const pool = segmentPool(size);
  const reader = new SegmentReader(codec);
  const decoded: unknown[] = [];
  let segments = 0;
  let spans = 0;
  const writer = new SegmentWriter(codec, {
    acquire: () => pool.acquire(),
    emit: (segment, used) => {
      segments++;
      if (segment[0] !== 1) spans++;
      reader.read(segment, used, (v) => decoded.push(v));
    },
  });
  for (const v of values) writer.write(v);
  writer.flush();
  assert.equal(reader.spanning, false);
  return { decoded, segments, spans };
}

describe('round trips of random types and values', () => {
  const all = cases(20240611);

  test(`growable buffer: ${TYPES} types x ${VALUES_PER_TYPE} values, all in one buffer per type`, () => {
    const out = DataOutput.growable(64);
    for (const { type, values, expected } of all) {
      const codec = compileCodec(type);
      out.pos = 0;
      for (const v of values) codec.encode(v, out);
      const input = new DataInput(out.written());
      for (const e of expected) assert.deepStrictEqual(codec.decode(input), e, describeType(type));
      assert.equal(input.remaining, 0, describeType(type));
    }
  });

  for (const size of [48, 200, 32 * 1024]) {
    test(`bounded segments of ${size} bytes: SEGMENT_FULL rewinds and spanning records`, () => {
      let segments = 0;
      let spans = 0;
      for (const { type, values, expected } of all) {
        const result = viaSegments(compileCodec(type), values, size);
        assert.deepStrictEqual(result.decoded, expected, describeType(type));
        segments += result.segments;
        spans += result.spans;
      }
      if (size < 1024) assert.ok(spans > 50, `records spanned segments (${spans} of ${segments} segments)`);
    });
  }

  test('records from a few bytes to 100 KiB in one stream of 32 KiB segments', () => {
    const type = Types.struct({ id: Types.int, text: Types.string, blob: Types.nullable(Types.bytes) });
    const r = new Random(7);
    const values = Array.from({ length: 400 }, (_, id) => {
      const size = r.chance(0.1) ? r.int(20_000, 100_000) : r.int(0, 300);
      return { id, text: 'é'.repeat(r.int(0, size)), blob: r.chance(0.5) ? new Uint8Array(size).fill(id & 0xff) : null };
    });
    const { decoded, segments, spans } = viaSegments(compileCodec(type), values, 32 * 1024);
    assert.deepStrictEqual(decoded, values);
    assert.ok(spans > 10 && segments > spans, `${spans} of ${segments} segments carry parts of spanning records`);
  });
});
