import { Packr, Unpackr } from 'msgpackr';
import type { Codec, NestedCodec } from './codec.ts';
import type { DataInput } from './data-input.ts';
import type { DataOutput } from './data-output.ts';
import { describeValue } from './describe-value.ts';
import { findUnencodable } from './find-unencodable.ts';
import { SerializationError } from './serialization-error.ts';
import { Types } from './types.ts';

/**
 * MessagePack options for `Types.any`. Records (useRecords) because only then does msgpackr tell
 * a Map (a MessagePack map, decoded with mapsAsObjects: false) from a plain object (a record);
 * without them every Map came back as an object with string keys. Each pack() carries its own
 * record definitions, so any record decodes on its own (a reader may start at any segment).
 * It costs: ~320 ns pack + ~190 ns unpack for {word, count} against ~130 + ~100 ns without
 * records (Node 20, this machine) — the schemaless path is the fallback, not the fast path.
 * copyBuffers: decoded byte arrays must not be views into a segment that will be reused.
 */
const OPTIONS = { useRecords: true, moreTypes: true, int64AsType: 'bigint', mapsAsObjects: false, copyBuffers: true } as const;

/** msgpackr writes a function as nil unless writeFunction says otherwise: a function is an error, never a silent undefined. */
class FunctionValue extends Error {}

const packr = new Packr({
  ...OPTIONS,
  writeFunction: () => {
    throw new FunctionValue('function');
  },
});
const unpackr = new Unpackr(OPTIONS);

/** The `Types.any` codec: length-prefixed MessagePack. */
export const schemalessCodec: Codec<unknown> & NestedCodec = {
  type: Types.any,
  encode(value: unknown, out: DataOutput, path: string = '$'): void {
    out.writeBytes(pack(value, path));
  },
  decode(input: DataInput): unknown {
    const start = input.pos;
    return unpack(input.readRaw(input.readLength(1)), start);
  },
};

/** The MessagePack bytes of value (a view into msgpackr's buffer, valid until the next pack). */
export function pack(value: unknown, path = '$'): Uint8Array {
  try {
    return packr.pack(value);
  } catch (e) {
    throw unencodable(value, path, e);
  }
}

/**
 * The value of MessagePack bytes pack() wrote (the bytes may be reused after: nothing decoded is a
 * view into them); `offset`: where they start in their input, for the error.
 */
export function unpack(bytes: Uint8Array, offset = 0): unknown {
  try {
    return unpackr.unpack(bytes);
  } catch (e) {
    throw SerializationError.corrupt(`MessagePack that does not decode (${(e as Error).message})`, offset, e);
  }
}

function unencodable(value: unknown, path: string, cause: unknown): SerializationError {
  const found = findUnencodable(value, path);
  if (found) return SerializationError.mismatch(found.path, 'any', found.actual, cause);
  const why = cause instanceof Error ? cause.message : String(cause);
  return new SerializationError(`cannot serialize ${path} as any (MessagePack): ${why}`, { path, expected: 'any', actual: describeValue(value) }, { cause });
}
