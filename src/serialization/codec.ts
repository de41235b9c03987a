import type { DataInput } from './data-input.ts';
import type { DataOutput } from './data-output.ts';
import type { BlockCodec } from './block-codec.ts';
import type { TypeInfo } from './type-info.ts';

/**
 * Writes values of one type into a DataOutput and reads them back. `encode` validates: a value
 * that does not fit throws SerializationError (with path, expected, actual), and a bounded output
 * may throw SEGMENT_FULL; either way the caller rewinds `out.pos` to where the record started.
 * Records are self-delimiting: `decode` reads exactly what `encode` wrote.
 */
export interface Codec<T> {
  readonly type: TypeInfo;
  encode(value: T, out: DataOutput): void;
  decode(input: DataInput): T;
  /** The same records by column, a segment's run at a time, where that pays (a declared struct: block-codec.ts); channels then send blocks. */
  readonly block?: BlockCodec;
}

/** A codec nested inside a compiled one, told where in the record its value is (for errors). */
export interface NestedCodec {
  encode(value: unknown, out: DataOutput, path: string): void;
  decode(input: DataInput): unknown;
}
