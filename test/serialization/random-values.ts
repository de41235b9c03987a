// Random TypeInfos and random values of them, from a seeded PRNG, for the property tests; and
// `expectedDecoding`, what a value of a type decodes as (nulls for absent nullables, numbers for
// Dates, only the declared struct fields).
import type { JsonValue, TypeInfo } from '../../src/serialization/type-info.ts';

/** mulberry32: a tiny seeded PRNG, good enough to explore values (not for cryptography). */
export class Random {
  #state: number;
  constructor(seed: number) {
    this.#state = seed >>> 0;
  }
  next(): number {
    let t = (this.#state = (this.#state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }
}

const LEAVES: TypeInfo['kind'][] = ['string', 'int', 'double', 'bigint', 'boolean', 'bytes', 'timestamp', 'json', 'any'];
const FIELD_NAMES = ['a', 'word', 'count', 'x1', 'odd key', '1', 'ünï', 'constructor', 'toString', '$v', 'é😀'];

export function randomType(r: Random, depth = 4): TypeInfo {
  if (depth === 0 || r.chance(0.35)) return { kind: r.pick(LEAVES) } as TypeInfo;
  switch (r.int(0, 4)) {
    case 0:
      return { kind: 'nullable', of: nonNullable(r, depth - 1) };
    case 1:
      return { kind: 'array', of: randomType(r, depth - 1) };
    case 2:
      return { kind: 'map', key: { kind: r.pick(['string', 'int', 'bigint', 'boolean'] as const) }, value: randomType(r, depth - 1) };
    case 3: {
      const names = [...new Set(Array.from({ length: r.int(0, 5) }, () => r.pick(FIELD_NAMES)))];
      return { kind: 'struct', fields: names.map((name) => ({ name, type: randomType(r, depth - 1) })) };
    }
    default:
      return { kind: 'tuple', items: Array.from({ length: r.int(0, 4) }, () => randomType(r, depth - 1)) };
  }
}

function nonNullable(r: Random, depth: number): TypeInfo {
  const t = randomType(r, depth);
  return t.kind === 'nullable' ? t.of : t;
}

const ALPHABETS = ['abcdefghijklmnopqrstuvwxyz0123456789 ', 'éüßçñ', '日本語中文한국어', '😀👍🏽🇩🇪🎉'];

export function randomString(r: Random): string {
  const length = r.chance(0.1) ? r.int(30, 300) : r.int(0, 20);
  const alphabet = [...(r.chance(0.7) ? ALPHABETS[0]! : ALPHABETS.join(''))];
  let s = '';
  for (let i = 0; i < length; i++) s += r.pick(alphabet);
  return s;
}

function randomSafeInt(r: Random): number {
  switch (r.int(0, 3)) {
    case 0:
      return r.int(-64, 63);
    case 1:
      return r.int(-(2 ** 31), 2 ** 31);
    case 2:
      return r.pick([Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, 2 ** 53 - 2, -(2 ** 52) - 1]);
    default:
      return Math.floor((r.next() - 0.5) * 2 ** 53);
  }
}

function randomDouble(r: Random): number {
  return r.chance(0.2) ? r.pick([NaN, -0, Infinity, -Infinity, 0.1, Number.MIN_VALUE]) : (r.next() - 0.5) * 10 ** r.int(-5, 20);
}

function randomBigint(r: Random): bigint {
  if (r.chance(0.2)) return r.pick([2n ** 63n - 1n, -(2n ** 63n), 0n, -1n]);
  return BigInt.asIntN(64, (BigInt(r.int(0, 2 ** 31)) << 32n) | BigInt(r.int(0, 2 ** 31)));
}

function randomBytes(r: Random): Uint8Array {
  return Uint8Array.from({ length: r.int(0, 40) }, () => r.int(0, 255));
}

export function randomJson(r: Random, depth = 2): JsonValue {
  switch (depth === 0 ? r.int(0, 3) : r.int(0, 5)) {
    case 0:
      return null;
    case 1:
      return r.chance(0.5);
    case 2:
      return r.chance(0.5) ? r.int(-1000, 1000) : (r.next() - 0.5) * 1e6;
    case 3:
      return randomString(r);
    case 4:
      return Array.from({ length: r.int(0, 4) }, () => randomJson(r, depth - 1));
    default:
      return Object.fromEntries(Array.from({ length: r.int(0, 4) }, () => [r.pick(FIELD_NAMES), randomJson(r, depth - 1)]));
  }
}

/** What Types.any carries as it is (MessagePack turns -0 into 0, so no -0 here). */
export function randomAny(r: Random, depth = 2): unknown {
  switch (depth === 0 ? r.int(0, 4) : r.int(0, 8)) {
    case 0:
      return randomJson(r, 0);
    case 1:
      return randomBigint(r);
    case 2:
      return r.chance(0.5) ? undefined : new Date(r.int(0, 2 ** 41));
    case 3:
      return randomBytes(r);
    case 4:
      return r.pick([NaN, Infinity, 2 ** 40 + 1, -1.5]);
    case 5:
      return new Map(Array.from({ length: r.int(0, 3) }, () => [randomAny(r, 0), randomAny(r, depth - 1)]));
    case 6:
      return new Set(Array.from({ length: r.int(0, 3) }, () => randomString(r)));
    case 7:
      return Array.from({ length: r.int(0, 3) }, () => randomAny(r, depth - 1));
    default:
      return Object.fromEntries(Array.from({ length: r.int(0, 3) }, () => [r.pick(FIELD_NAMES), randomAny(r, depth - 1)]));
  }
}

export function randomValue(r: Random, type: TypeInfo): unknown {
  switch (type.kind) {
    case 'string':
      return randomString(r);
    case 'int':
      return randomSafeInt(r);
    case 'double':
      return randomDouble(r);
    case 'bigint':
      return randomBigint(r);
    case 'boolean':
      return r.chance(0.5);
    case 'bytes':
      return randomBytes(r);
    case 'timestamp':
      return r.chance(0.2) ? new Date(r.int(0, 2 ** 42)) : r.int(0, 2 ** 42);
    case 'json':
      return randomJson(r);
    case 'any':
      return randomAny(r);
    case 'nullable':
      return r.chance(0.3) ? r.pick([null, undefined]) : randomValue(r, type.of);
    case 'array':
      return Array.from({ length: r.chance(0.05) ? r.int(50, 400) : r.int(0, 5) }, () => randomValue(r, type.of));
    case 'map':
      return new Map(Array.from({ length: r.int(0, 5) }, () => [randomValue(r, type.key), randomValue(r, type.value)]));
    case 'struct': {
      const o: Record<string, unknown> = {};
      // A missing field named like an Object.prototype member would read the inherited one.
      for (const f of type.fields) if (!(f.type.kind === 'nullable' && !(f.name in Object.prototype) && r.chance(0.2))) o[f.name] = randomValue(r, f.type);
      if (r.chance(0.1)) o.undeclaredExtra = 'not carried';
      return o;
    }
    case 'tuple':
      return type.items.map((t) => randomValue(r, t));
  }
}

/** The value a round trip gives back for `value` of `type`. */
export function expectedDecoding(type: TypeInfo, value: unknown): unknown {
  switch (type.kind) {
    case 'timestamp':
      return value instanceof Date ? value.getTime() : value;
    case 'int':
      return Object.is(value, -0) ? 0 : value;
    case 'nullable':
      return value == null ? null : expectedDecoding(type.of, value);
    case 'array':
      return (value as unknown[]).map((v) => expectedDecoding(type.of, v));
    case 'map':
      return new Map([...(value as Map<unknown, unknown>)].map(([k, v]) => [expectedDecoding(type.key, k), expectedDecoding(type.value, v)]));
    case 'struct': {
      const o = value as Record<string, unknown>;
      return Object.fromEntries(type.fields.map((f) => [f.name, expectedDecoding(f.type, o[f.name])]));
    }
    case 'tuple':
      return type.items.map((t, i) => expectedDecoding(t, (value as unknown[])[i]));
    default:
      return value;
  }
}
