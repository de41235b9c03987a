// The codecs the `codec` scenario compares, each behind one interface: encode a batch of
// records, then decode it. Everything a variant allocates per record (decoded objects, JSON
// strings, msgpackr's buffers) is part of what it costs.
import { Packr, Unpackr } from 'msgpackr';
import { compileCodec } from '../../src/serialization/compile-codec.ts';
import { DataInput } from '../../src/serialization/data-input.ts';
import { DataOutput } from '../../src/serialization/data-output.ts';
import { InferringCodec } from '../../src/serialization/inferring-codec.ts';
import { SegmentReader } from '../../src/serialization/segment-reader.ts';
import { SegmentWriter } from '../../src/serialization/segment-writer.ts';
import type { TypeInfo } from '../../src/serialization/type-info.ts';

export interface CodecVariant {
  readonly id: string;
  readonly label: string;
  /** Encodes records[0..n) (replacing the previous batch). */
  encode(records: readonly unknown[], n: number): void;
  /** Decodes the batch last encoded, returning something of each record so nothing is optimized away. */
  decode(n: number): number;
  /** Bytes the last batch took (0 when the variant does not make bytes). */
  readonly bytes: number;
}

/** A buffer in a SharedArrayBuffer, as network segments are; big enough for a whole batch. */
function sharedBuffer(size: number): Uint8Array {
  return new Uint8Array(new SharedArrayBuffer(size));
}

function touch(v: unknown): number {
  return typeof v === 'object' && v !== null ? 1 : 0;
}

export function declaredVariant(type: TypeInfo, bufferSize: number): CodecVariant {
  const codec = compileCodec(type);
  const buf = sharedBuffer(bufferSize);
  const out = DataOutput.bounded(buf);
  const input = new DataInput(buf);
  return {
    id: 'declared',
    label: 'declared (compileCodec)',
    encode(records, n) {
      out.reset(buf, 0, buf.length);
      for (let i = 0; i < n; i++) codec.encode(records[i], out);
    },
    decode(n) {
      input.reset(buf, 0, out.pos);
      let k = 0;
      for (let i = 0; i < n; i++) k += touch(codec.decode(input));
      return k;
    },
    get bytes() {
      return out.pos;
    },
  };
}

export function inferredVariant(bufferSize: number): CodecVariant {
  const writer = new InferringCodec();
  const reader = new InferringCodec();
  const buf = sharedBuffer(bufferSize);
  const out = DataOutput.bounded(buf);
  const input = new DataInput(buf);
  return {
    id: 'inferred',
    label: 'inferred (InferringCodec)',
    encode(records, n) {
      out.reset(buf, 0, buf.length);
      writer.startSegment(); // each batch is a segment: the schema is repeated once per batch
      for (let i = 0; i < n; i++) writer.encode(records[i], out);
    },
    decode(n) {
      input.reset(buf, 0, out.pos);
      let k = 0;
      for (let i = 0; i < n; i++) k += touch(reader.decode(input));
      return k;
    },
    get bytes() {
      return out.pos;
    },
  };
}

/** Declared, through SegmentWriter/SegmentReader and 32 KiB segments: what the segment machinery adds. */
export function segmentsVariant(type: TypeInfo): CodecVariant {
  const codec = compileCodec(type);
  const pool = Array.from({ length: 4 }, () => sharedBuffer(32 * 1024));
  const emitted: Array<[Uint8Array, number]> = [];
  let next = 0;
  let bytes = 0;
  const writer = new SegmentWriter(codec, { acquire: () => pool[next++ % pool.length]!, emit: (s, used) => (emitted.push([s, used]), (bytes += used)) });
  const reader = new SegmentReader(codec);
  let k = 0;
  const onRecord = (v: unknown) => (k += touch(v));
  return {
    id: 'segments',
    label: 'declared via 32 KiB segments',
    encode(records, n) {
      emitted.length = 0;
      bytes = 0;
      for (let i = 0; i < n; i++) writer.write(records[i]);
      writer.flush();
    },
    decode() {
      // Segments are reused round-robin, so read them in the order written, as a channel would.
      k = 0;
      for (const [s, used] of emitted) reader.read(s, used, onRecord);
      return k;
    },
    get bytes() {
      return bytes;
    },
  };
}

/** Today's default state serializer: one msgpackr pack per value, maps as objects. */
export function msgpackPerRecordVariant(): CodecVariant {
  const packr = new Packr({ useRecords: false, moreTypes: true, int64AsType: 'bigint' });
  const packed: Uint8Array[] = [];
  return {
    id: 'msgpackr',
    label: 'msgpackr per record (default serializer)',
    encode(records, n) {
      packed.length = 0;
      for (let i = 0; i < n; i++) packed.push(packr.pack(records[i]));
    },
    decode(n) {
      let k = 0;
      for (let i = 0; i < n; i++) k += touch(packr.unpack(packed[i]!));
      return k;
    },
    get bytes() {
      return packed.reduce((s, b) => s + b.length, 0);
    },
  };
}

/** The network path before shared-memory rings (a port channel): one msgpackr pack of the whole buffer's array, with records. */
export function msgpackBatchVariant(): CodecVariant {
  const packr = new Packr({ useRecords: true, moreTypes: true });
  const unpackr = new Unpackr({ useRecords: true, moreTypes: true });
  let packed: Uint8Array = new Uint8Array(0);
  return {
    id: 'msgpackr-batch',
    label: 'msgpackr batch array (port channel)',
    encode(records, n) {
      packed = packr.pack(n === records.length ? records : records.slice(0, n));
    },
    decode() {
      return (unpackr.unpack(packed) as unknown[]).length;
    },
    get bytes() {
      return packed.length;
    },
  };
}

export function jsonVariant(): CodecVariant {
  const texts: string[] = [];
  return {
    id: 'json',
    label: 'JSON.stringify/parse per record (strings, no bytes)',
    encode(records, n) {
      texts.length = 0;
      for (let i = 0; i < n; i++) texts.push(JSON.stringify(records[i]));
    },
    decode(n) {
      let k = 0;
      for (let i = 0; i < n; i++) k += touch(JSON.parse(texts[i]!));
      return k;
    },
    bytes: 0,
  };
}
