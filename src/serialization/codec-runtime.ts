import { describeValue } from './describe-value.ts';
import { keyText } from './find-unencodable.ts';
import { jsonCodec } from './json-codec.ts';
import { schemalessCodec } from './schemaless-codec.ts';
import { SerializationError } from './serialization-error.ts';

/**
 * What generated codec source calls, by name. Failing is a call (out of line, so the hot path
 * of the generated function stays small); everything else is a plain function or a constant.
 */
export const codecRuntime = {
  fail(value: unknown, expected: string, path: string): never {
    throw SerializationError.mismatch(path, expected, describeValue(value));
  },
  /** An object that is not exactly of the inferred struct shape (extra keys, a class instance). */
  failShape(value: unknown, expected: string, path: string): never {
    throw SerializationError.mismatch(path, expected, `${describeValue(value)} (not exactly that shape)`);
  },
  isSafe: Number.isSafeInteger,
  isArray: Array.isArray,
  protoOf: Object.getPrototypeOf as (o: object) => unknown,
  hasOwn: Object.hasOwn,
  OBJECT_PROTO: Object.prototype,
  MIN_I64: -(2n ** 63n),
  MAX_I64: 2n ** 63n - 1n,
  keyText,
  countKeys(o: object): number {
    let n = 0;
    for (const _ in o) n++;
    return n;
  },
  json: jsonCodec,
  any: schemalessCodec,
} as const;

export type CodecRuntimeName = keyof typeof codecRuntime;
