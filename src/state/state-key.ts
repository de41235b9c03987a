import type { Key } from './key-group.ts';

/**
 * The form a key takes in state tables. Tables are Maps, which compare arrays by identity, so a
 * composite key (`keyBy(r => [r.a, r.b])`) would find a fresh entry for every record; it is stored
 * as a string that is equal exactly when the parts are (type and value, so `[1]` and `['1']`
 * differ). The leading U+0001 keeps it apart from the keys people write as strings. Other keys
 * are stored as they are.
 */
export function stateKey(key: Key): Key {
  return Array.isArray(key) ? `\u0001${encodeParts(key)}` : key;
}

function encodeParts(parts: readonly Key[]): string {
  let s = '[';
  for (const p of parts) s += `${encodePart(p)},`;
  return `${s}]`;
}

function encodePart(p: Key): string {
  switch (typeof p) {
    case 'string':
      return `s${p.length}:${p}`;
    case 'number':
      return `n${Object.is(p, -0) ? '-0' : String(p)}`;
    case 'bigint':
      return `b${p}`;
    case 'boolean':
      return p ? 't' : 'f';
    case 'undefined':
      return 'u';
    default:
      if (p === null) return 'z';
      return `a${encodeParts(p as readonly Key[])}`;
  }
}
