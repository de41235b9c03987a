import { describeValue } from './describe-value.ts';
import { memberPath } from './member-path.ts';

/** What no codec can carry, and where. */
export interface Unencodable {
  readonly path: string;
  readonly actual: string;
}

/**
 * Looks for a function, a symbol or a cycle inside value, the way msgpackr walks it (own
 * enumerable keys, array items, Map keys and values, Set items). Only run after an encoder
 * failed, to say why: the happy path pays nothing for it.
 */
export function findUnencodable(value: unknown, path = '$'): Unencodable | undefined {
  return walk(value, path, new Set());
}

function walk(value: unknown, path: string, ancestors: Set<object>): Unencodable | undefined {
  const t = typeof value;
  if (t === 'function' || t === 'symbol') return { path, actual: describeValue(value) };
  if (t !== 'object' || value === null) return undefined;
  const object = value as object;
  if (ancestors.has(object)) return { path, actual: 'cyclic object' };
  if (ArrayBuffer.isView(object) || object instanceof Date || object instanceof RegExp) return undefined;
  ancestors.add(object);
  try {
    return walkChildren(object, path, ancestors);
  } finally {
    ancestors.delete(object);
  }
}

function walkChildren(object: object, path: string, ancestors: Set<object>): Unencodable | undefined {
  if (object instanceof Map) {
    let i = 0;
    for (const [k, v] of object) {
      const found = walk(k, `${path}.keys()[${i}]`, ancestors) ?? walk(v, `${path}.get(${keyText(k, i)})`, ancestors);
      if (found) return found;
      i++;
    }
    return undefined;
  }
  if (object instanceof Set) {
    let i = 0;
    for (const v of object) {
      const found = walk(v, `${path}.values()[${i++}]`, ancestors);
      if (found) return found;
    }
    return undefined;
  }
  if (Array.isArray(object)) {
    for (let i = 0; i < object.length; i++) {
      const found = walk(object[i], `${path}[${i}]`, ancestors);
      if (found) return found;
    }
    return undefined;
  }
  for (const key of Object.keys(object)) {
    const found = walk((object as Record<string, unknown>)[key], memberPath(path, key), ancestors);
    if (found) return found;
  }
  return undefined;
}

/** A Map key as it would be written in code, when it is short; its position otherwise. */
export function keyText(key: unknown, index: number): string {
  if (typeof key === 'string' && key.length <= 32) return JSON.stringify(key);
  if (typeof key === 'number' || typeof key === 'boolean') return String(key);
  if (typeof key === 'bigint') return `${key}n`;
  return `<key #${index}>`;
}
