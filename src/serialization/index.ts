// weir's serializers (Flink's TypeInformation -> TypeSerializer): declared types compiled to
// codecs, inference with a schemaless fallback for undeclared streams, byte buffers for network
// segments and state files, serializer snapshots and their compatibility. What the network and
// state code import; not yet part of the public API (src/index.ts).
export { Types } from './types.ts';
export type { Type, TypeInfo, TypeKind, StructField, ValueOf, JsonValue } from './type-info.ts';
export { describeType } from './describe-type.ts';
export { describeValue } from './describe-value.ts';
export { checkTypeInfo, parseTypeInfo } from './check-type-info.ts';
export { SerializationError, type SerializationFacts } from './serialization-error.ts';
export { DataOutput } from './data-output.ts';
export { DataInput } from './data-input.ts';
export { SEGMENT_FULL, SegmentFullSignal } from './segment-full.ts';
export type { Codec } from './codec.ts';
export { compileCodec, type CompiledCodec, type CompileOptions } from './compile-codec.ts';
export { schemalessCodec } from './schemaless-codec.ts';
export { inferType } from './infer-type.ts';
export { InferringCodec } from './inferring-codec.ts';
export { SegmentWriter, type SegmentTarget } from './segment-writer.ts';
export { SegmentReader } from './segment-reader.ts';
export { SEGMENT_SIZE } from './segment-format.ts';
export { serializerFor, restoreSerializer, type TypedSerializer } from './serializer-for.ts';
export { snapshotOf, msgpackSnapshot, TYPES_KIND, MSGPACK_KIND, TYPES_FORMAT_VERSION, type SerializerSnapshot } from './serializer-snapshot.ts';
export { resolveCompatibility, explainCompatibility, migrationFor, type Compatibility, type CompatibilityReport } from './resolve-compatibility.ts';
export { planMigration, type Migration } from './plan-migration.ts';
export { IncompatibleSerializerError } from './incompatible-serializer-error.ts';
export { compileCopy } from './compile-copy.ts';
