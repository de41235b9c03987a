import { serializerFor } from '../serialization/serializer-for.ts';
import type { Type } from '../serialization/type-info.ts';
import type { ValueFormat } from './format.ts';

/**
 * Values in weir's binary encoding of a declared type (the `Types` codecs state and the network
 * use): compact, exact for bigints, bytes, Maps and timestamps, and checked on write. Both ends
 * must declare the same type; the bytes carry no schema.
 */
export function typedFormat<T>(type: Type<T>): ValueFormat<T> {
  const s = serializerFor(type);
  return {
    name: 'weir-types',
    // serialize returns a copy of the scratch buffer: a sink may keep it past the next call.
    serialize: (value) => s.serialize(value),
    deserialize: (bytes) => s.deserialize(bytes),
  };
}
