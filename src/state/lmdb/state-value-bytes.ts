import type { TypeSerializer } from '../../api/serializer.ts';
import { MSGPACK_KIND, snapshotOf, TYPES_KIND } from '../../serialization/serializer-snapshot.ts';
import { restoreSerializer } from '../../serialization/serializer-for.ts';
import { pack, unpack } from '../../serialization/schemaless-codec.ts';
import type { InPlaceAggregate } from '../in-place-aggregate.ts';
import type { StoredStateInfo } from '../stored-state-info.ts';

/**
 * How one state's values are bytes in the lmdb store, and back: `decode` gives what the state's
 * handles work on (a cache holds it), `decodeStored` what a snapshot writes (the two differ for an
 * in-place aggregate, whose store holds the aggregate a reduce would).
 */
export interface StateValueBytes {
  encode(value: unknown): Uint8Array;
  decode(bytes: Uint8Array): unknown;
  decodeStored(bytes: Uint8Array): unknown;
}

/**
 * Values of a msgpack state (undeclared ones) as the state files write a value of no known shape
 * (schemaless-codec's MessagePack, whose records keep a Map a Map): what the store can hold, a
 * checkpoint can write. V8's structured clone did the same job at 5–7x the cost per value
 * ({key, v}: 2.4–3.5 µs to write and 2 µs to read against 0.3–0.6 and 0.5), which was most of a
 * restore's time into the store. pack() returns a view into msgpackr's buffer: the store keeps a
 * copy (a delta snapshot holds encoded values for a while).
 */
const messagePackBytes: StateValueBytes = {
  encode: (v) => Buffer.from(pack(v)),
  decode: (b) => unpack(b),
  decodeStored: (b) => unpack(b),
};

/** A state the operator registered: its descriptor's serializer writes the values (MessagePack for msgpack, see above). */
export function descriptorValueBytes(serializer: TypeSerializer<unknown>): StateValueBytes {
  if (snapshotOf(serializer).kind === MSGPACK_KIND) return messagePackBytes;
  const decode = (b: Uint8Array) => serializer.deserialize(b);
  return { encode: (v) => serializer.serialize(v), decode, decodeStored: decode };
}

/** An in-place aggregate's states, stored as the aggregate they stand for. */
export function inPlaceValueBytes<S, T>(serializer: TypeSerializer<T>, form: InPlaceAggregate<S, T>): StateValueBytes {
  const stored = descriptorValueBytes(serializer as TypeSerializer<unknown>);
  return {
    encode: (s) => stored.encode(form.toStored(s as S)),
    decode: (b) => form.fromStored(stored.decode(b) as T),
    decodeStored: stored.decodeStored,
  };
}

/**
 * Restored values the operator has not asked for yet, in the form a state file reader made them:
 * weir-types and msgpack values are written by the stored serializer; a custom serializer's are
 * still its bytes (only the job's descriptor reads them).
 */
export function storedValueBytes(info: StoredStateInfo): StateValueBytes {
  if (info.snapshot.kind === MSGPACK_KIND) return messagePackBytes;
  if (info.snapshot.kind === TYPES_KIND) return descriptorValueBytes(restoreSerializer(info.snapshot));
  // The store's buffers are reused by its next read: a value kept as bytes is a copy.
  const copy = (b: Uint8Array) => Uint8Array.prototype.slice.call(b);
  return { encode: (v) => v as Uint8Array, decode: copy, decodeStored: copy };
}
