/**
 * The codec of a stream nobody declared a type for: the first record's type is inferred
 * (inferType) and records of that shape go through a codec compiled for it; the first record
 * that does not fit switches the writer to the schemaless codec for the rest of the stream.
 *
 * Wire format, per record, a tag byte and then:
 *
 *   0x01 INFERRED     the record, written with the schema the reader was last given
 *   0x02 SCHEMA       varint length + the schema as JSON text (a TypeInfo), then the record
 *                     written with it; the reader keeps it for the INFERRED records after it
 *   0x03 SCHEMALESS   varint length + MessagePack (the `Types.any` codec)
 *
 * (0x00 is never a tag, so zeroed memory is not mistaken for a record.) Every record says how
 * it was written, so the reader decodes record for record, before and after the switch, and
 * needs no other state than the last schema. `startSegment()` makes the next inferred record
 * repeat the schema, so that a reader can start at any segment (in-flight data persisted by an
 * unaligned checkpoint is read by a fresh reader). The inferred schema may differ between runs;
 * it only lives on the wire.
 *
 * One instance per stream and direction: the writer's state is what it has announced, the
 * reader's what it has been told.
 *
 * `{ adapt: true }` (state files, where one odd value must not send every later one to the slow
 * path): a record that does not fit makes the writer infer again from it and announce the new
 * schema (SCHEMA), and only a record no schema fits is written SCHEMALESS, alone. Re-inference
 * is bounded per segment (ADAPTATIONS_PER_SEGMENT), so values of ever-changing shapes cost a
 * failed encode each, not a schema each. The bytes are the same format, read by any reader.
 */
import type { Codec } from './codec.ts';
import { compileCodec, type CompiledCodec } from './compile-codec.ts';
import type { DataInput } from './data-input.ts';
import type { DataOutput } from './data-output.ts';
import { inferType } from './infer-type.ts';
import { parseTypeInfo } from './check-type-info.ts';
import { schemalessCodec } from './schemaless-codec.ts';
import { SerializationError } from './serialization-error.ts';
import type { TypeInfo } from './type-info.ts';
import { Types } from './types.ts';

export const INFERRED = 0x01;
export const SCHEMA = 0x02;
export const SCHEMALESS = 0x03;

/** How often an adapting writer may infer a new schema between two startSegment() calls. */
const ADAPTATIONS_PER_SEGMENT = 8;

export interface InferringCodecOptions {
  /** Infer again on a misfit instead of falling back for the rest of the stream (see above). */
  readonly adapt?: boolean;
}

export class InferringCodec implements Codec<unknown> {
  readonly type: TypeInfo = Types.any;

  // writer
  #schema: TypeInfo | undefined;
  #schemaText = '';
  #codec: CompiledCodec<unknown> | undefined;
  #announced = false;
  #schemaless = false;
  #misfit: SerializationError | undefined;
  readonly #adapt: boolean;
  #adaptations = 0;

  // reader
  #readText = '';
  #readCodec: CompiledCodec<unknown> | undefined;

  constructor(options: InferringCodecOptions = {}) {
    this.#adapt = options.adapt ?? false;
  }

  /** The type inferred from the first record (undefined before it, or when it was schemaless from the start). */
  get inferred(): TypeInfo | undefined {
    return this.#schema;
  }

  /** Whether the writer has fallen back to the schemaless codec, and the record that made it. */
  get fallback(): { readonly schemaless: boolean; readonly misfit: SerializationError | undefined } {
    return { schemaless: this.#schemaless, misfit: this.#misfit };
  }

  /** The next inferred record carries the schema again (call where a reader may start). */
  startSegment(): void {
    this.#announced = false;
    this.#adaptations = 0;
  }

  encode(value: unknown, out: DataOutput): void {
    if (this.#adapt) return this.#encodeAdapting(value, out);
    if (!this.#schemaless && this.#codec === undefined) this.#adopt(value);
    if (this.#schemaless) return writeSchemaless(value, out);
    const start = out.pos;
    try {
      this.#writeInferred(value, out, this.#codec!);
    } catch (e) {
      if (!(e instanceof SerializationError)) throw e; // SEGMENT_FULL included: the caller retries
      out.pos = start;
      this.#schemaless = true;
      this.#misfit = e;
      writeSchemaless(value, out);
    }
  }

  decode(input: DataInput): unknown {
    const at = input.pos;
    const tag = input.readByte();
    switch (tag) {
      case INFERRED:
        if (this.#readCodec === undefined) return input.fail('an inferred record before any schema (a reader must start at a segment the writer started)', at);
        return this.#readCodec.decode(input);
      case SCHEMA:
        this.#learn(input);
        return this.#readCodec!.decode(input);
      case SCHEMALESS:
        return schemalessCodec.decode(input);
      default:
        return input.fail(`a record tag ${tag}`, at);
    }
  }

  #adopt(first: unknown): void {
    const schema = inferType(first);
    if (schema.kind === 'any') {
      this.#schemaless = true;
      return;
    }
    this.#use(schema);
  }

  #use(schema: TypeInfo): void {
    this.#schema = schema;
    this.#schemaText = JSON.stringify(schema);
    this.#codec = compileCodec(schema, { exact: true });
    this.#announced = false;
  }

  #encodeAdapting(value: unknown, out: DataOutput): void {
    const start = out.pos;
    if (this.#codec !== undefined) {
      try {
        return this.#writeInferred(value, out, this.#codec);
      } catch (e) {
        if (!(e instanceof SerializationError)) throw e;
        out.pos = start;
        this.#misfit = e;
      }
    }
    if (this.#adaptations < ADAPTATIONS_PER_SEGMENT) {
      this.#adaptations++;
      const schema = inferType(value);
      if (schema.kind !== 'any') {
        this.#use(schema);
        try {
          return this.#writeInferred(value, out, this.#codec!);
        } catch (e) {
          // An array whose later items differ from the sampled ones: this record goes alone.
          if (!(e instanceof SerializationError)) throw e;
          out.pos = start;
        }
      }
    }
    writeSchemaless(value, out);
  }

  /** The announced flag changes only once the record is written: a SEGMENT_FULL retry announces again. */
  #writeInferred(value: unknown, out: DataOutput, codec: CompiledCodec<unknown>): void {
    if (this.#announced) {
      out.writeByte(INFERRED);
    } else {
      out.writeByte(SCHEMA);
      out.writeString(this.#schemaText);
    }
    codec.encode(value, out);
    this.#announced = true;
  }

  #learn(input: DataInput): void {
    const at = input.pos;
    const text = input.readString();
    if (text === this.#readText) return;
    let schema: TypeInfo;
    try {
      schema = parseTypeInfo(text);
    } catch (e) {
      throw SerializationError.corrupt(`a schema that is not a TypeInfo (${(e as Error).message})`, at, e);
    }
    this.#readCodec = compileCodec(schema, { exact: true });
    this.#readText = text;
  }
}

function writeSchemaless(value: unknown, out: DataOutput): void {
  out.writeByte(SCHEMALESS);
  schemalessCodec.encode(value, out);
}
