import type { TypeInfo } from './type-info.ts';

const LEAVES = new Set(['string', 'int', 'double', 'bigint', 'boolean', 'bytes', 'timestamp', 'json', 'any']);

/**
 * A TypeInfo read from outside the program (a snapshot's `_metadata`, a schema frame on the
 * wire), checked before a codec is generated from it: a malformed one is a TypeError naming
 * where it went wrong, never generated code that does something else.
 */
export function checkTypeInfo(value: unknown, path = '$'): TypeInfo {
  if (typeof value !== 'object' || value === null) throw new TypeError(`not a TypeInfo at ${path}: ${JSON.stringify(value)}`);
  const t = value as Record<string, unknown>;
  if (typeof t.kind === 'string' && LEAVES.has(t.kind)) return t as TypeInfo;
  switch (t.kind) {
    case 'nullable':
    case 'array':
      checkTypeInfo(t.of, `${path}.of`);
      return t as TypeInfo;
    case 'map':
      checkTypeInfo(t.key, `${path}.key`);
      checkTypeInfo(t.value, `${path}.value`);
      return t as TypeInfo;
    case 'tuple':
      if (!Array.isArray(t.items)) throw new TypeError(`not a TypeInfo at ${path}: a tuple without items`);
      t.items.forEach((item, i) => checkTypeInfo(item, `${path}.items[${i}]`));
      return t as TypeInfo;
    case 'struct':
      return checkStruct(t, path);
    default:
      throw new TypeError(`not a TypeInfo at ${path}: unknown kind ${JSON.stringify(t.kind)}`);
  }
}

function checkStruct(t: Record<string, unknown>, path: string): TypeInfo {
  if (!Array.isArray(t.fields)) throw new TypeError(`not a TypeInfo at ${path}: a struct without fields`);
  const names = new Set<string>();
  t.fields.forEach((f: unknown, i) => {
    const field = f as { name?: unknown; type?: unknown } | null;
    if (typeof field?.name !== 'string' || field.name === '__proto__' || names.has(field.name)) {
      throw new TypeError(`not a TypeInfo at ${path}.fields[${i}]: a field name must be a unique string other than __proto__`);
    }
    names.add(field.name);
    checkTypeInfo(field.type, `${path}.fields[${i}].type`);
  });
  return t as TypeInfo;
}

export function parseTypeInfo(text: string): TypeInfo {
  return checkTypeInfo(JSON.parse(text));
}
