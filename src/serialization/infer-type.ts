import type { TypeInfo } from './type-info.ts';
import { Types } from './types.ts';

/** Deeper or wider than this is left to the schemaless codec: generated code stays small. */
const MAX_DEPTH = 6;
const MAX_FIELDS = 64;
/** Array items looked at; a later item of another shape is caught when it is encoded. */
const SAMPLED_ITEMS = 16;

/**
 * A guess at the type of a stream's records from one of them, for streams nobody declared.
 *
 * - strings -> string, booleans -> boolean;
 * - every number -> double, never int: a count of 3 now may be 2.5 later, and a misfit sends the
 *   rest of the stream to the schemaless codec, which costs far more than the 7 bytes an int
 *   would save;
 * - plain objects (prototype Object.prototype) -> struct of their own keys in their order;
 * - arrays whose sampled items are all of one type -> array of it; empty arrays -> array<any>;
 * - anything else (null, undefined, bigint, Map, Date, class instances, mixed arrays) -> any.
 *
 * The guess is checked, not trusted: inferred codecs are compiled `exact`, so a record that
 * does not fit is detected (see InferringCodec).
 */
export function inferType(value: unknown): TypeInfo {
  return infer(value, 0);
}

function infer(value: unknown, depth: number): TypeInfo {
  switch (typeof value) {
    case 'string':
      return Types.string;
    case 'number':
      return Types.double;
    case 'boolean':
      return Types.boolean;
    case 'object':
      if (value === null || depth >= MAX_DEPTH) return Types.any;
      if (Array.isArray(value)) return inferArray(value, depth);
      if (Object.getPrototypeOf(value) === Object.prototype) return inferStruct(value as Record<string, unknown>, depth);
      return Types.any;
    default:
      return Types.any;
  }
}

function inferArray(items: readonly unknown[], depth: number): TypeInfo {
  if (items.length === 0) return Types.array(Types.any);
  const first = infer(items[0], depth + 1);
  const text = JSON.stringify(first);
  for (let i = 1; i < Math.min(items.length, SAMPLED_ITEMS); i++) {
    if (JSON.stringify(infer(items[i], depth + 1)) !== text) return Types.any;
  }
  return Types.array(first);
}

function inferStruct(object: Record<string, unknown>, depth: number): TypeInfo {
  const keys = Object.keys(object);
  if (keys.length > MAX_FIELDS || keys.includes('__proto__')) return Types.any;
  return { kind: 'struct', fields: keys.map((name) => ({ name, type: infer(object[name], depth + 1) })) };
}
