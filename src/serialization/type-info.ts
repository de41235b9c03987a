/**
 * What a value is, as plain data: JSON-serializable so that it can be stored in `_metadata` as a
 * state's schema and sent beside inferred records. `Types` (types.ts) builds these; the compiled
 * codecs, the compatibility rules and the error messages all read them.
 *
 * Struct fields are an array, not an object, because their order is the wire order and JSON
 * objects reorder integer-like keys ("1" before "a").
 */
export type TypeInfo =
  | { readonly kind: 'string' }
  | { readonly kind: 'int' }
  | { readonly kind: 'double' }
  | { readonly kind: 'bigint' }
  | { readonly kind: 'boolean' }
  | { readonly kind: 'bytes' }
  | { readonly kind: 'timestamp' }
  | { readonly kind: 'json' }
  | { readonly kind: 'any' }
  | { readonly kind: 'nullable'; readonly of: TypeInfo }
  | { readonly kind: 'array'; readonly of: TypeInfo }
  | { readonly kind: 'map'; readonly key: TypeInfo; readonly value: TypeInfo }
  | { readonly kind: 'struct'; readonly fields: readonly StructField[] }
  | { readonly kind: 'tuple'; readonly items: readonly TypeInfo[] };

export interface StructField {
  readonly name: string;
  readonly type: TypeInfo;
}

export type TypeKind = TypeInfo['kind'];

/** Phantom marker: never present at run time, so a `Type<T>` is still plain data. */
declare const valueType: unique symbol;

/** A TypeInfo that also tells TypeScript what values it describes. */
export type Type<T> = TypeInfo & { readonly [valueType]?: T };

/** The TypeScript type of the values a `Type` describes. */
export type ValueOf<X> = X extends Type<infer T> ? T : never;

/** JSON text can carry these and nothing else. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
