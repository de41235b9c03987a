import { msgpackSerializer, type TypeSerializer } from '../api/serializer.ts';
import { checkTypeInfo } from './check-type-info.ts';
import type { Codec } from './codec.ts';
import { compileCodec } from './compile-codec.ts';
import { compileCopy } from './compile-copy.ts';
import { DataInput } from './data-input.ts';
import { DataOutput } from './data-output.ts';
import { IncompatibleSerializerError } from './incompatible-serializer-error.ts';
import { MSGPACK_KIND, TYPES_FORMAT_VERSION, TYPES_KIND, type SerializerSnapshot } from './serializer-snapshot.ts';
import type { Type } from './type-info.ts';

/**
 * Today's TypeSerializer (one value <-> one Uint8Array), plus what state backends and the network
 * need to write many values into one buffer (`encode`/`decode` of the codec) and to record what
 * wrote them (`snapshot`, stored in `_metadata`).
 */
export interface TypedSerializer<T> extends TypeSerializer<T>, Codec<T> {
  readonly type: Type<T>;
  snapshot(): SerializerSnapshot;
}

/** The serializer of a declared type. `id` is 'weir-types' and `version` the byte format's; what changes with the schema is the snapshot. */
export function serializerFor<T>(type: Type<T>): TypedSerializer<T> {
  const codec = compileCodec(type);
  const scratch = DataOutput.growable(256);
  const snapshot: SerializerSnapshot = Object.freeze({ kind: TYPES_KIND, version: TYPES_FORMAT_VERSION, schema: type });
  return {
    id: TYPES_KIND,
    version: TYPES_FORMAT_VERSION,
    type,
    serialize(value: T): Uint8Array {
      scratch.pos = 0;
      codec.encode(value, scratch);
      return scratch.buf.slice(0, scratch.pos);
    },
    deserialize(bytes: Uint8Array): T {
      const input = new DataInput(bytes);
      const value = codec.decode(input);
      if (input.remaining !== 0) input.fail(`${input.remaining} bytes after the value`);
      return value;
    },
    copy: compileCopy(type) as (value: T) => T,
    encode: codec.encode,
    decode: codec.decode,
    snapshot: () => snapshot,
  };
}

/**
 * The serializer that reads state written with `snapshot` (the stored schema, not the job's
 * current one): a restore reads with it, then converts with migrationFor(stored, current).
 * A custom serializer cannot be rebuilt from its snapshot; the job's descriptor has it.
 */
export function restoreSerializer(snapshot: SerializerSnapshot): TypeSerializer<unknown> & { snapshot(): SerializerSnapshot } {
  if (snapshot.kind === TYPES_KIND) {
    if (snapshot.version > TYPES_FORMAT_VERSION) throw new IncompatibleSerializerError(snapshot, snapshot, `format version ${snapshot.version} is newer than this weir's (${TYPES_FORMAT_VERSION})`);
    return serializerFor(checkTypeInfo(snapshot.schema));
  }
  if (snapshot.kind === MSGPACK_KIND) return { ...msgpackSerializer(snapshot.version), snapshot: () => snapshot };
  throw new IncompatibleSerializerError(snapshot, snapshot, `a '${snapshot.kind}' serializer is the job's own: only its state descriptor can read it`);
}
