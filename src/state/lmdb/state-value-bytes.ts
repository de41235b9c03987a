import type { TypeSerializer } from '../../api/serializer.ts';
import { MSGPACK_KIND, TYPES_KIND } from '../../serialization/serializer-snapshot.ts';
import { restoreSerializer } from '../../serialization/serializer-for.ts';
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

/** A state the operator registered: its descriptor's serializer writes the values. */
export function descriptorValueBytes(serializer: TypeSerializer<unknown>): StateValueBytes {
  const decode = (b: Uint8Array) => serializer.deserialize(b);
  return { encode: (v) => serializer.serialize(v), decode, decodeStored: decode };
}

/** An in-place aggregate's states, stored as the aggregate they stand for. */
export function inPlaceValueBytes<S, T>(serializer: TypeSerializer<T>, form: InPlaceAggregate<S, T>): StateValueBytes {
  return {
    encode: (s) => serializer.serialize(form.toStored(s as S)),
    decode: (b) => form.fromStored(serializer.deserialize(b)),
    decodeStored: (b) => serializer.deserialize(b),
  };
}

/**
 * Restored values the operator has not asked for yet, in the form a state file reader made them:
 * weir-types and msgpack values are written by the stored serializer; a custom serializer's are
 * still its bytes (only the job's descriptor reads them).
 */
export function storedValueBytes(info: StoredStateInfo): StateValueBytes {
  if (info.snapshot.kind === TYPES_KIND || info.snapshot.kind === MSGPACK_KIND) return descriptorValueBytes(restoreSerializer(info.snapshot));
  // The store's buffers are reused by its next read: a value kept as bytes is a copy.
  const copy = (b: Uint8Array) => Uint8Array.prototype.slice.call(b);
  return { encode: (v) => v as Uint8Array, decode: copy, decodeStored: copy };
}
