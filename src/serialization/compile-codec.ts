import { checkTypeInfo } from './check-type-info.ts';
import type { Codec } from './codec.ts';
import { codecRuntime } from './codec-runtime.ts';
import type { DataInput } from './data-input.ts';
import type { DataOutput } from './data-output.ts';
import { decoderSource } from './decoder-source.ts';
import { encoderSource } from './encoder-source.ts';
import { minEncodedSize } from './min-encoded-size.ts';
import { PathExpression } from './path-expression.ts';
import { SourceContext } from './source-context.ts';
import type { Type, TypeInfo } from './type-info.ts';

export interface CompileOptions {
  /**
   * Reject structs that are not exactly the declared shape (extra keys, a prototype other than
   * Object.prototype, a field of type any that is absent rather than undefined). For inferred
   * types, where a mismatch must send the record to the schemaless codec instead of losing data.
   */
  readonly exact?: boolean;
}

/** A compiled codec and the source it was made from (for a debugger, and for tests to read). */
export interface CompiledCodec<T> extends Codec<T> {
  readonly source: string;
}

type Compiled = { encode(value: unknown, out: DataOutput): void; decode(input: DataInput): unknown };

/** Inferred schemas arrive from the wire, so the cache is bounded: the oldest entry goes first. */
const CACHE_LIMIT = 512;
const cache = new Map<string, CompiledCodec<unknown>>();

/**
 * A codec for `type` generated as JS source and compiled with `new Function`: one function for
 * encode and one for decode, struct and tuple members unrolled (no closure per field), so a
 * {word, count} record costs a type check and a write per field. Codecs hold no state and are
 * cached by type, so asking again is cheap.
 */
export function compileCodec<T>(type: Type<T>, options: CompileOptions = {}): CompiledCodec<T> {
  const key = `${options.exact ? 'x' : 'd'}${JSON.stringify(type)}`;
  let codec = cache.get(key);
  if (!codec) {
    codec = build(checkTypeInfo(type), options.exact ?? false);
    if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
    cache.set(key, codec);
  }
  return codec as CompiledCodec<T>;
}

function build(type: TypeInfo, exact: boolean): CompiledCodec<unknown> {
  const ctx = new SourceContext();
  // A record must take at least a byte, or a reader could not tell how many records of an
  // empty struct or tuple a segment holds: such a type writes a single 0.
  const empty = minEncodedSize(type) === 0;
  const encodeBody = encoderSource(type, 'value', PathExpression.root, ctx, exact) + (empty ? '\nout.writeByte(0);' : '');
  const decode = decoderSource(type, ctx);
  const decodeStatements = empty ? `if (inp.readByte() !== 0) inp.fail('an empty record that is not 0', inp.pos - 1);\n${decode.statements}` : decode.statements;
  const source = [
    '"use strict";',
    ctx.prelude(),
    `function encode(value, out) {\n${encodeBody}\n}`,
    `function decode(inp) {\n${decodeStatements}\nreturn ${decode.expression};\n}`,
    'return { encode: encode, decode: decode };',
  ].join('\n');
  const compiled = new Function('R', source)(codecRuntime) as Compiled;
  return { type, source, encode: compiled.encode, decode: compiled.decode };
}
