// Records of a declared struct type go between threads as blocks, by column (block-codec.ts,
// channel-frames.ts). Property test: random struct types (every leaf kind, nested fields, names
// that need quoting) and random values, with and without timestamps, events between them, in
// segments small enough that blocks end early and records span: each reader gets exactly what the
// row codec gives for the same records, in order, with the same timestamps. Also: a record that
// does not fit its type fails as in a row and leaves the block whole; a corrupt block fails the
// reader with the facts; a real ring channel carries blocks.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { systemClock } from '../../src/clock/clock.ts';
import { FrameReader, FrameWriter, type FrameSink } from '../../src/network/channel-frames.ts';
import { InputChannel } from '../../src/network/input-channel.ts';
import { NO_TIMESTAMP } from '../../src/network/record-timestamp.ts';
import { connectRingInput } from '../../src/network/ring-input.ts';
import { RingOutputChannel } from '../../src/network/ring-output-channel.ts';
import { SegmentRing } from '../../src/network/segment-ring.ts';
import type { StreamEvent } from '../../src/network/stream-event.ts';
import { blockCodecFor } from '../../src/serialization/block-codec.ts';
import type { Codec } from '../../src/serialization/codec.ts';
import { compileCodec } from '../../src/serialization/compile-codec.ts';
import { DataOutput } from '../../src/serialization/data-output.ts';
import { SerializationError } from '../../src/serialization/serialization-error.ts';
import type { StructField, TypeInfo } from '../../src/serialization/type-info.ts';
import { Types } from '../../src/serialization/types.ts';
import { declaredCodec } from '../../src/worker/edge-codec.ts';
import { expectedDecoding, Random, randomType, randomValue } from '../serialization/random-values.ts';

type Item = { readonly record: unknown; readonly timestamp: number } | { readonly event: StreamEvent };
type Got = { readonly record: unknown; readonly timestamp: number } | { readonly event: string };

const COLUMN_LEAVES = ['string', 'int', 'double', 'boolean', 'timestamp'] as const;

function randomStruct(r: Random): TypeInfo & { kind: 'struct' } {
  const names = ['word', 'count', 'odd key', '1', 'ünï', 'constructor', 'x', 'é😀'];
  const fields: StructField[] = [];
  for (const name of names.slice(0, r.int(1, names.length))) {
    fields.push({ name, type: r.chance(0.6) ? { kind: r.pick(COLUMN_LEAVES) } : randomType(r, 2) });
  }
  if (!fields.some((f) => (COLUMN_LEAVES as readonly string[]).includes(f.type.kind))) fields.push({ name: 'n', type: Types.int });
  while (fields.length < 3) fields.push({ name: `pad${fields.length}`, type: { kind: r.pick(COLUMN_LEAVES) } });
  return { kind: 'struct', fields };
}

/** Writes the items as a RingOutputChannel does (publish and retry when full, span when larger than a segment); returns the segments. */
function writeFrames(codec: Codec<unknown>, items: readonly Item[], segmentSize: number): Uint8Array[] {
  const frames = new FrameWriter(codec);
  const segments: Uint8Array[] = [];
  let segment = new Uint8Array(segmentSize);
  frames.begin(segment);
  const publish = () => {
    segments.push(segment.slice(0, frames.finish()));
    segment = new Uint8Array(segmentSize);
    frames.begin(segment);
  };
  for (const item of items) {
    if ('event' in item) {
      if (!frames.event(item.event)) {
        publish();
        assert.ok(frames.event(item.event), 'an event fits an empty segment');
      }
      continue;
    }
    if (frames.record(item.record, item.timestamp)) continue;
    if (frames.used > 0) {
      publish();
      if (frames.record(item.record, item.timestamp)) continue;
    }
    const bytes = frames.span(item.record, item.timestamp).slice();
    for (let offset = frames.copySpan(bytes, 0); offset < bytes.length; offset = frames.copySpan(bytes, offset)) publish();
  }
  if (frames.used > 0) publish();
  return segments;
}

function readFrames(codec: Codec<unknown>, segments: readonly Uint8Array[], plain: boolean): Got[] {
  const reader = new FrameReader(codec);
  const got: Got[] = [];
  let pending: unknown[] = [];
  const flushPlain = () => {
    for (const record of pending) got.push({ record, timestamp: NO_TIMESTAMP });
    pending = [];
  };
  const sink: FrameSink = {
    record: (record, timestamp) => {
      flushPlain();
      got.push({ record, timestamp });
    },
    event: (event) => {
      flushPlain();
      got.push({ event: event.kind });
    },
    plainRecords: () => (plain ? pending : undefined),
  };
  for (const s of segments) reader.read(s, sink);
  flushPlain();
  return got;
}

function randomItems(r: Random, type: TypeInfo, n: number): Item[] {
  const timed = r.chance(0.5);
  return Array.from({ length: n }, (): Item => {
    if (r.chance(0.02)) return { event: { kind: 'end-of-data' } as StreamEvent };
    return { record: randomValue(r, type), timestamp: timed && r.chance(0.7) ? r.int(0, 2 ** 42) : NO_TIMESTAMP };
  });
}

describe('record blocks', () => {
  test('random struct types and values: blocks read back as rows do, in order, with timestamps and events between', () => {
    const r = new Random(20261206);
    let blocks = 0;
    let records = 0;
    for (let t = 0; t < 150; t++) {
      const type = randomStruct(r);
      const rows = compileCodec(type);
      const blocked = declaredCodec(type);
      assert.ok(blocked.block, `a block form for ${JSON.stringify(type)}`);
      const items = randomItems(r, type, r.int(1, 300));
      const segmentSize = r.pick([128, 512, 4096, 32 * 1024]);
      const segments = writeFrames(blocked, items, segmentSize);
      blocks += segments.filter((s) => s[0] === 0x08).length;
      const expected = items.map((i): Got => ('event' in i ? { event: i.event.kind } : { record: expectedDecoding(type, i.record), timestamp: i.timestamp }));
      const plain = r.chance(0.5);
      assert.deepEqual(readFrames(blocked, segments, plain), expected, `type ${JSON.stringify(type)}, segments of ${segmentSize}`);
      // The same items as rows decode to the same: blocks change the layout, never the records.
      assert.deepEqual(readFrames(rows, writeFrames(rows, items, segmentSize), plain), expected);
      records += items.length;
    }
    assert.ok(blocks > 100 && records > 10_000, `blocks were written (${blocks}) over ${records} items`);
  });

  test('a segment of small records holds one block, laid out by column', () => {
    const type = Types.struct({ word: Types.string, count: Types.int, ok: Types.boolean });
    const items = Array.from({ length: 100 }, (_, i): Item => ({ record: { word: `w${i % 7}`, count: i, ok: i % 3 === 0 }, timestamp: NO_TIMESTAMP }));
    const blocked = writeFrames(declaredCodec(type), items, 32 * 1024);
    assert.equal(blocked.length, 1);
    assert.equal(blocked[0]![0], 0x08, 'a BLOCK frame');
    assert.equal(blocked[0]!.length, 6 + (5 + 100 + 200) + (1 + 400) + 100, 'header, the words (lengths + bytes), the counts as i32, a byte a boolean');
  });

  test('a value that does not fit its type fails as in a row, and the records before it still go, whole', () => {
    const type = Types.struct({ word: Types.string, count: Types.int, tags: Types.array(Types.string) });
    const codec = declaredCodec(type);
    const frames = new FrameWriter(codec);
    const segment = new Uint8Array(4096);
    frames.begin(segment);
    assert.ok(frames.record({ word: 'a', count: 1, tags: ['x'] }));
    const bad: unknown = { word: 'b', count: 2, tags: ['y', 3] };
    const rowError = captureError(() => compileCodec(type).encode(bad as never, DataOutput.growable()));
    const blockError = captureError(() => frames.record(bad));
    assert.ok(blockError instanceof SerializationError);
    assert.deepEqual(pick(blockError), pick(rowError as SerializationError));
    assert.equal((blockError as SerializationError & { path: string }).path, '$.tags[1]');
    assert.ok(frames.record({ word: 'c', count: 3, tags: [] }, 42));
    const got = readFrames(codec, [segment.slice(0, frames.finish())], false);
    assert.deepEqual(got, [
      { record: { word: 'a', count: 1, tags: ['x'] }, timestamp: NO_TIMESTAMP },
      { record: { word: 'c', count: 3, tags: [] }, timestamp: 42 },
    ]);
  });

  test('int columns go as i32 while every value fits, as f64 from the first that does not', () => {
    const type = Types.struct({ n: Types.int, a: Types.boolean, b: Types.boolean });
    const small = writeFrames(declaredCodec(type), [1, -5, 2 ** 31 - 1].map((n) => ({ record: { n, a: true, b: false }, timestamp: NO_TIMESTAMP })), 1024);
    const large = writeFrames(declaredCodec(type), [1, 2 ** 40, -0].map((n) => ({ record: { n, a: true, b: false }, timestamp: NO_TIMESTAMP })), 1024);
    assert.equal(small[0]![6], 4);
    assert.equal(large[0]![6], 8);
    assert.deepEqual(readFrames(declaredCodec(type), large, true).map((g) => ('record' in g ? g.record : g)), [1, 2 ** 40, 0].map((n) => ({ n, a: true, b: false })));
  });

  test('a corrupt block fails the reader with what was wrong and where', () => {
    const type = Types.struct({ word: Types.string, count: Types.int, score: Types.double });
    const codec = declaredCodec(type);
    const [segment] = writeFrames(codec, [{ record: { word: 'abc', count: 1, score: 0.5 }, timestamp: NO_TIMESTAMP }], 1024);
    const widths = segment!.slice();
    widths[6] = 3; // the string column's length width
    assert.throws(() => readFrames(codec, [widths], true), /string lengths of width 3/);
    const count = segment!.slice();
    count[1] = 200; // 200 records in a block of a few bytes
    assert.throws(() => readFrames(codec, [count], true), /a block of 200 records/);
    assert.throws(() => readFrames(compileCodec(type), [segment!], true), /no block form/);
  });

  test('types with no column of their own, with fewer than three fields, and types that are not structs, have no block form', () => {
    assert.equal(blockCodecFor(Types.struct({ tags: Types.array(Types.string), m: Types.nullable(Types.int), o: Types.bytes })), undefined);
    assert.equal(blockCodecFor(Types.struct({ word: Types.string, count: Types.int })), undefined);
    assert.equal(blockCodecFor(Types.tuple(Types.string, Types.int)), undefined);
    assert.equal(blockCodecFor(Types.string), undefined);
    assert.ok(blockCodecFor(Types.struct({ a: Types.double, tags: Types.array(Types.string), m: Types.nullable(Types.int) })));
  });

  test('a ring channel between threads carries blocks: every record, in order, with barriers between', async () => {
    const type = Types.struct({ word: Types.string, count: Types.int, score: Types.double, ok: Types.boolean });
    const shape = { segments: 4, segmentSize: 1024 };
    const ring = SegmentRing.create(shape);
    const output = new RingOutputChannel(ring, declaredCodec(type), systemClock);
    const input = new InputChannel(0, 'from the writer');
    const errors: unknown[] = [];
    const close = connectRingInput(SegmentRing.attach(ring.buffer, shape), input, declaredCodec(type), (e) => errors.push(e));
    const sent = Array.from({ length: 5_000 }, (_, i) => ({ word: `wörd${i % 13}`, count: i, score: i / 3, ok: i % 2 === 0 }));
    const got: unknown[] = [];
    let next = 0;
    try {
      for (let rounds = 0; rounds < 10_000 && got.length < sent.length; rounds++) {
        while (next < sent.length && output.writable) {
          output.emit(sent[next++]);
          if (next % 1000 === 0) output.sendEvent({ kind: 'end-of-data' } as StreamEvent);
        }
        output.flush();
        await new Promise((resolve) => setImmediate(resolve));
        for (let item = input.poll(); item !== undefined; item = input.poll()) if (item.kind === 'records') got.push(...item.records);
      }
    } finally {
      close();
      output.close();
    }
    assert.deepEqual(errors, []);
    assert.deepEqual(got, sent);
  });
});

function captureError(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  return assert.fail('no error');
}

function pick(e: SerializationError): unknown {
  const { message, path, expected, actual } = e as SerializationError & { path?: string; expected?: string; actual?: string };
  return { message, path, expected, actual };
}
