import { FormatError } from './format-error.ts';

/**
 * JSON text for values of change records, keeping what JSON.stringify drops or refuses: bigints
 * as exact integer literals, bytes (Uint8Array, Buffer) through `bytes`, Dates as ISO text.
 * Anything else that JSON cannot carry (NaN, functions, symbols) is a FormatError naming its path.
 */
export function stringifyExact(format: string, value: unknown, bytes: (b: Uint8Array) => string, path = ''): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      return value.toString();
    case 'number':
      if (!Number.isFinite(value)) throw new FormatError(format, 'NOT_REPRESENTABLE', path, `${value} is not a JSON number`);
      return JSON.stringify(value);
    case 'undefined':
      return 'null';
    case 'object': {
      if (value === null) return 'null';
      if (value instanceof Uint8Array) return JSON.stringify(bytes(value));
      if (value instanceof Date) return JSON.stringify(value.toISOString());
      if (Array.isArray(value)) return `[${value.map((v, i) => stringifyExact(format, v, bytes, `${path}[${i}]`)).join(',')}]`;
      const parts: string[] = [];
      for (const [k, v] of Object.entries(value)) if (v !== undefined) parts.push(`${JSON.stringify(k)}:${stringifyExact(format, v, bytes, path ? `${path}.${k}` : k)}`);
      return `{${parts.join(',')}}`;
    }
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
