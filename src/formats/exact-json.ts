import { FormatError } from './format-error.ts';

/**
 * JSON text for values of change records, keeping what JSON.stringify drops or refuses: bigints
 * as exact integer literals, bytes (Uint8Array, Buffer) through `bytes`, Dates as ISO text.
 * Anything else that JSON cannot carry (NaN, functions, symbols) is a FormatError naming its path.
 * Every change a JSON sink writes goes through here (22% of a pipeline's CPU when it built the
 * path of every value), so a value JSON.stringify writes the same way goes to it, the rest to a
 * walk without paths, and only a failure walks again to name where.
 */
export function stringifyExact(format: string, value: unknown, bytes: (b: Uint8Array) => string): string {
  if (plainJson(value, 0)) return JSON.stringify(value) ?? 'null';
  try {
    return exact(value, bytes);
  } catch (e) {
    if (e !== NOT_JSON) throw e;
    return exactAt(format, value, bytes, '');
  }
}

const NOT_JSON = new Error('not JSON');
const MAX_PLAIN_DEPTH = 16;
/** What JSON.stringify escapes in a string (lone surrogates too): without any, quotes suffice. */
const NEEDS_ESCAPE = /[\u0000-\u001f"\\\ud800-\udfff]/;
/** Quoted field names: a change format writes the same few over and over. Bounded, for maps with data as keys. */
const quotedKeys = new Map<string, string>();
const MAX_QUOTED_KEYS = 4096;

function quote(s: string): string {
  return NEEDS_ESCAPE.test(s) ? JSON.stringify(s) : `"${s}"`;
}

function quoteKey(k: string): string {
  let q = quotedKeys.get(k);
  if (q === undefined) {
    q = quote(k);
    if (quotedKeys.size < MAX_QUOTED_KEYS) quotedKeys.set(k, q);
  }
  return q;
}

/** Whether JSON.stringify writes the value as stringifyExact would: no bigint, bytes, Date, toJSON or non-finite number. */
function plainJson(v: unknown, depth: number): boolean {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(v);
    case 'object': {
      if (v === null) return true;
      if (depth > MAX_PLAIN_DEPTH) return false;
      if (Array.isArray(v)) {
        for (const x of v) if (x === undefined || !plainJson(x, depth + 1)) return false;
        return true;
      }
      if (v instanceof Uint8Array || v instanceof Date || typeof (v as { toJSON?: unknown }).toJSON === 'function') return false;
      for (const k in v) {
        const x = (v as Record<string, unknown>)[k];
        if (x !== undefined && !plainJson(x, depth + 1)) return false;
      }
      return true;
    }
    default:
      return false;
  }
}

function exact(value: unknown, bytes: (b: Uint8Array) => string): string {
  switch (typeof value) {
    case 'string':
      return quote(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      return value.toString();
    case 'number':
      if (!Number.isFinite(value)) throw NOT_JSON;
      return JSON.stringify(value);
    case 'undefined':
      return 'null';
    case 'object': {
      if (value === null) return 'null';
      if (value instanceof Uint8Array) return JSON.stringify(bytes(value));
      if (value instanceof Date) return JSON.stringify(value.toISOString());
      if (Array.isArray(value)) {
        let s = '[';
        for (let i = 0; i < value.length; i++) s += (i === 0 ? '' : ',') + exact(value[i], bytes);
        return s + ']';
      }
      let s = '{';
      for (const k of Object.keys(value)) {
        const v = (value as Record<string, unknown>)[k];
        if (v !== undefined) s += (s.length === 1 ? '' : ',') + quoteKey(k) + ':' + exact(v, bytes);
      }
      return s + '}';
    }
    default:
      throw NOT_JSON;
  }
}

/** The same, naming the path of what JSON cannot carry. */
function exactAt(format: string, value: unknown, bytes: (b: Uint8Array) => string, path: string): string {
  switch (typeof value) {
    case 'number':
      if (!Number.isFinite(value)) throw new FormatError(format, 'NOT_REPRESENTABLE', path, `${value} is not a JSON number`);
      return JSON.stringify(value);
    case 'object': {
      if (value === null || value instanceof Uint8Array || value instanceof Date) return exact(value, bytes);
      if (Array.isArray(value)) return `[${value.map((v, i) => exactAt(format, v, bytes, `${path}[${i}]`)).join(',')}]`;
      const parts: string[] = [];
      for (const [k, v] of Object.entries(value)) if (v !== undefined) parts.push(`${JSON.stringify(k)}:${exactAt(format, v, bytes, path ? `${path}.${k}` : k)}`);
      return `{${parts.join(',')}}`;
    }
    case 'string':
    case 'boolean':
    case 'bigint':
    case 'undefined':
      return exact(value, bytes);
    default:
      throw new FormatError(format, 'NOT_REPRESENTABLE', path, `a ${typeof value} is not JSON`);
  }
}

/** No integer literal shorter than this exceeds Number.MAX_SAFE_INTEGER (16 digits). */
const LONG_DIGITS = /\d{16}/;

/**
 * JSON.parse, except that integer literals beyond Number.MAX_SAFE_INTEGER become bigints (exact)
 * instead of rounded numbers. Text without 16 digits in a row takes JSON.parse alone.
 */
export function parseExact(format: string, text: string): unknown {
  try {
    if (!LONG_DIGITS.test(text)) return JSON.parse(text);
    return new ExactParser(text).parseDocument();
  } catch (e) {
    throw new FormatError(format, 'NOT_JSON', '', e instanceof Error ? e.message : String(e), e);
  }
}

const NUMBER = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;

class ExactParser {
  readonly #s: string;
  #i = 0;

  constructor(s: string) {
    this.#s = s;
  }

  parseDocument(): unknown {
    const v = this.#value();
    this.#ws();
    if (this.#i !== this.#s.length) this.#fail('text after the value');
    return v;
  }

  #value(): unknown {
    this.#ws();
    const c = this.#s[this.#i];
    if (c === '{') return this.#object();
    if (c === '[') return this.#array();
    if (c === '"') return this.#string();
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return this.#number();
    for (const [word, v] of [['true', true], ['false', false], ['null', null]] as const) {
      if (this.#s.startsWith(word, this.#i)) {
        this.#i += word.length;
        return v;
      }
    }
    return this.#fail('a value');
  }

  #object(): Record<string, unknown> {
    const o: Record<string, unknown> = {};
    this.#i++;
    this.#ws();
    if (this.#s[this.#i] === '}') return this.#i++, o;
    for (;;) {
      this.#ws();
      const k = this.#string();
      this.#ws();
      this.#expect(':');
      Object.defineProperty(o, k, { value: this.#value(), enumerable: true, writable: true, configurable: true });
      this.#ws();
      if (this.#s[this.#i] === '}') return this.#i++, o;
      this.#expect(',');
    }
  }

  #array(): unknown[] {
    const a: unknown[] = [];
    this.#i++;
    this.#ws();
    if (this.#s[this.#i] === ']') return this.#i++, a;
    for (;;) {
      a.push(this.#value());
      this.#ws();
      if (this.#s[this.#i] === ']') return this.#i++, a;
      this.#expect(',');
    }
  }

  #string(): string {
    if (this.#s[this.#i] !== '"') this.#fail('a string');
    let j = this.#i + 1;
    while (j < this.#s.length && this.#s[j] !== '"') j += this.#s[j] === '\\' ? 2 : 1;
    const text = this.#s.slice(this.#i, j + 1);
    this.#i = j + 1;
    return JSON.parse(text) as string;
  }

  #number(): number | bigint {
    NUMBER.lastIndex = this.#i;
    const m = NUMBER.exec(this.#s);
    if (!m) return this.#fail('a number');
    this.#i += m[0].length;
    const n = Number(m[0]);
    return m[1] === undefined && m[2] === undefined && !Number.isSafeInteger(n) ? BigInt(m[0]) : n;
  }

  #ws(): void {
    while (this.#i < this.#s.length && ' \t\n\r'.includes(this.#s[this.#i]!)) this.#i++;
  }

  #expect(c: string): void {
    if (this.#s[this.#i] !== c) this.#fail(`'${c}'`);
    this.#i++;
  }

  #fail(what: string): never {
    throw new SyntaxError(`expected ${what} at position ${this.#i}`);
  }
}
