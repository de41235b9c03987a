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

/** The key a user gave, back from its stored form (applyToKeyedState hands keys to user code). */
export function userKey(stored: Key): Key {
  if (typeof stored !== 'string' || !stored.startsWith('\u0001[')) return stored;
  return new KeyReader(stored, 1).parts();
}

class KeyReader {
  readonly #s: string;
  #at: number;
  constructor(s: string, at: number) {
    this.#s = s;
    this.#at = at;
  }

  /** `[part,part,...]` from the current position. */
  parts(): Key[] {
    const out: Key[] = [];
    this.#at++; // '['
    while (this.#s[this.#at] !== ']') {
      out.push(this.#part());
      this.#at++; // ','
    }
    this.#at++;
    return out;
  }

  #part(): Key {
    const s = this.#s;
    const tag = s[this.#at++];
    switch (tag) {
      case 's': {
        const colon = s.indexOf(':', this.#at);
        const length = Number(s.slice(this.#at, colon));
        this.#at = colon + 1 + length;
        return s.slice(colon + 1, this.#at);
      }
      case 'n':
        return Number(this.#until(','));
      case 'b':
        return BigInt(this.#until(','));
      case 't':
        return true;
      case 'f':
        return false;
      case 'u':
        return undefined;
      case 'z':
        return null;
      case 'a':
        return this.parts();
      default:
        throw new Error(`not a stored composite key: ${JSON.stringify(s)}`);
    }
  }

  #until(end: string): string {
    const stop = this.#s.indexOf(end, this.#at);
    const text = this.#s.slice(this.#at, stop);
    this.#at = stop;
    return text;
  }
}
