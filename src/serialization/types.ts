import type { JsonValue, StructField, Type, TypeInfo, ValueOf } from './type-info.ts';

type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** Fields whose type admits null may be left out of the object (they decode as null). */
type NullableKeys<F> = { [K in keyof F]: null extends ValueOf<F[K]> ? K : never }[keyof F];

type StructValue<F> = Simplify<
  { -readonly [K in Exclude<keyof F, NullableKeys<F>>]: ValueOf<F[K]> } & { -readonly [K in NullableKeys<F>]?: ValueOf<F[K]> }
>;

export type TupleValue<T extends readonly Type<unknown>[]> = { -readonly [K in keyof T]: ValueOf<T[K]> };

/**
 * The vocabulary a stream or a state declares its values with (Flink's `Types`). Each is plain
 * data (a TypeInfo); the compiled codec decides the bytes.
 *
 * - `int`: a safe integer (|v| <= 2^53-1), zigzag varint. -0 is written as 0.
 * - `double`: any number, 8 bytes little-endian (NaN, -0 and infinities survive).
 * - `bigint`: signed 64-bit; a bigint outside int64 is an error, not a wrap-around.
 * - `timestamp`: milliseconds since the epoch as a safe integer. A Date is accepted too (its
 *   getTime(); an invalid Date is an error) because event times often arrive as Dates, but it
 *   decodes as a number: one representation downstream, whatever the source had.
 * - `nullable(t)`: null or undefined, both decoded as null (one absent value, as in SQL).
 * - `struct`: an object, fields written in declared order (Object.entries order of the argument,
 *   which puts integer-like names first); a field that is undefined or missing is an error
 *   unless it is nullable or any. Properties not declared are not carried; inherited ones (class
 *   getters) are read. It decodes as a plain object.
 * - `json`: what JSON text can carry (null, booleans, finite numbers, strings, arrays, plain
 *   objects), checked before it is written as JSON text; anything else is an error rather than
 *   JSON.stringify's silent dropping. -0 decodes as 0.
 * - `any`: schemaless MessagePack (msgpackr) keeping bigints, Maps, Sets, Dates and typed arrays;
 *   functions, symbols and cyclic objects are errors.
 * - strings are UTF-8; a lone surrogate becomes U+FFFD, as with TextEncoder and Buffer (also
 *   inside `any`). Inside `json` it survives: JSON.stringify writes it as a \uD800 escape.
 */
export const Types = {
  string: { kind: 'string' } as Type<string>,
  int: { kind: 'int' } as Type<number>,
  double: { kind: 'double' } as Type<number>,
  bigint: { kind: 'bigint' } as Type<bigint>,
  boolean: { kind: 'boolean' } as Type<boolean>,
  bytes: { kind: 'bytes' } as Type<Uint8Array>,
  timestamp: { kind: 'timestamp' } as Type<number>,
  json: { kind: 'json' } as Type<JsonValue>,
  any: { kind: 'any' } as Type<unknown>,

  nullable<T>(of: Type<T>): Type<T | null> {
    return { kind: 'nullable', of };
  },

  array<T>(of: Type<T>): Type<T[]> {
    return { kind: 'array', of };
  },

  map<K, V>(key: Type<K>, value: Type<V>): Type<Map<K, V>> {
    return { kind: 'map', key, value };
  },

  struct<F extends Record<string, Type<any>>>(fields: F): Type<StructValue<F>> {
    return { kind: 'struct', fields: Object.entries(fields).map(([name, type]) => structField(name, type)) };
  },

  tuple<T extends readonly Type<any>[]>(...items: T): Type<TupleValue<T>> {
    return { kind: 'tuple', items: [...items] };
  },
} as const;

function structField(name: string, type: TypeInfo): StructField {
  // An object literal with a `__proto__` key sets the prototype instead of a field.
  if (name === '__proto__') throw new TypeError("Types.struct: a field cannot be named '__proto__'");
  return { name, type };
}
