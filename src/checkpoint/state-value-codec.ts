import type { TypeSerializer } from '../api/serializer.ts';
import { checkTypeInfo } from '../serialization/check-type-info.ts';
import { compileCodec } from '../serialization/compile-codec.ts';
import type { DataInput } from '../serialization/data-input.ts';
import type { DataOutput } from '../serialization/data-output.ts';
import { IncompatibleSerializerError } from '../serialization/incompatible-serializer-error.ts';
import { InferringCodec } from '../serialization/inferring-codec.ts';
import { MSGPACK_KIND, TYPES_FORMAT_VERSION, TYPES_KIND, type SerializerSnapshot } from '../serialization/serializer-snapshot.ts';

/** How a state file block encodes the values of a state of each serializer kind. */
export type StateValueEncoding = 'typed' | 'schemaless' | 'bytes';

/**
 * Writes and reads the values of one state in a state file (format 2), as its serializer
 * snapshot says:
 *
 * - `weir-types`: the compiled codec of the snapshot's schema, nothing around it;
 * - `msgpack` (undeclared state, and msgpackSerializer(v)): the adapting inferring codec, a tag
 *   byte per value: a schema inferred from the values and announced once per block (numbers as
 *   doubles), and MessagePack only for a value no inferred schema fits. It reads back what
 *   MessagePack would (the bytes are a detail of the file; the state's serializer is still
 *   msgpack v<version>, so its upgrade rules are unchanged);
 * - any other kind (a serializer of the job's own): the bytes its serialize() made, length
 *   prefixed, read back as bytes for the descriptor to deserialize.
 *
 * One codec per writer or reader of a file: the schemaless one remembers what it announced or
 * was told. `startBlock` is called at each block, so that a block decodes on its own (a restore
 * at another parallelism reads only some key groups).
 */
export interface StateValueCodec {
  readonly snapshot: SerializerSnapshot;
  readonly encoding: StateValueEncoding;
  startBlock(): void;
  encode(value: unknown, out: DataOutput): void;
  decode(input: DataInput): unknown;
}

/** `serializer` writes the values of a custom kind; without it they are the stored bytes already (restored, not claimed). */
export function stateValueCodec(snapshot: SerializerSnapshot, serializer?: TypeSerializer<unknown>): StateValueCodec {
  if (snapshot.kind === TYPES_KIND) {
    if (snapshot.version > TYPES_FORMAT_VERSION) throw new IncompatibleSerializerError(snapshot, snapshot, `format version ${snapshot.version} is newer than this weir's (${TYPES_FORMAT_VERSION})`);
    const codec = compileCodec(checkTypeInfo(snapshot.schema));
    return { snapshot, encoding: 'typed', startBlock: () => {}, encode: codec.encode, decode: codec.decode };
  }
  if (snapshot.kind === MSGPACK_KIND) {
    const codec = new InferringCodec({ adapt: true });
    return {
      snapshot,
      encoding: 'schemaless',
      startBlock: () => codec.startSegment(),
      encode: (value, out) => codec.encode(value, out),
      decode: (input) => codec.decode(input),
    };
  }
  const serialize = serializer?.serialize;
  return {
    snapshot,
    encoding: 'bytes',
    startBlock: () => {},
    encode: serialize === undefined ? (value, out) => out.writeBytes(value as Uint8Array) : (value, out) => out.writeBytes(serialize(value)),
    decode: (input) => input.readBytes(),
  };
}
