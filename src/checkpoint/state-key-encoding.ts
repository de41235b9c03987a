import type { DataInput } from '../serialization/data-input.ts';
import type { DataOutput } from '../serialization/data-output.ts';
import { SerializationError } from '../serialization/serialization-error.ts';
import { describeValue } from '../serialization/describe-value.ts';
import type { Key } from '../state/key-group.ts';

/**
 * How the keys of one run of a state file are written: inferred from the run's keys, so that a
 * run of string keys (the usual keyBy) costs a string per key and no tag. A state table holds
 * keys as primitives (a composite key is already a string there, state-key.ts), and every kind
 * of them has a tagged form for runs that mix kinds.
 */
export const KEYS_STRING = 1;
/** Safe integers other than -0, zigzag varints. */
export const KEYS_INT = 2;
/** Any numbers, 8 bytes each. */
export const KEYS_DOUBLE = 3;
/** A tag byte per key, then its value. */
export const KEYS_TAGGED = 4;

const TAG_UNDEFINED = 0;
const TAG_NULL = 1;
const TAG_FALSE = 2;
const TAG_TRUE = 3;
const TAG_STRING = 4;
const TAG_INT = 5;
const TAG_DOUBLE = 6;
/** Decimal text: a key may be any bigint, not only an int64. */
const TAG_BIGINT = 7;

/** The narrowest encoding that writes every one of `keys[0..n)`. */
export function keyEncodingOf(keys: readonly Key[], n: number): number {
  let strings = true;
  let ints = true;
  let numbers = true;
  for (let i = 0; i < n; i++) {
    const k = keys[i];
    if (typeof k === 'string') {
      if (!strings) return KEYS_TAGGED;
      ints = numbers = false;
    } else if (typeof k === 'number') {
      if (!numbers) return KEYS_TAGGED;
      strings = false;
      if (ints && (!Number.isSafeInteger(k) || Object.is(k, -0))) ints = false;
    } else {
      return KEYS_TAGGED;
    }
  }
  return strings ? KEYS_STRING : ints ? KEYS_INT : KEYS_DOUBLE;
}

/** The narrowest encoding that writes `key` (keyEncodingOf of a run of one key, without the array). */
export function keyEncodingOfKey(key: Key): number {
  if (typeof key === 'string') return KEYS_STRING;
  if (typeof key === 'number') return Number.isSafeInteger(key) && !Object.is(key, -0) ? KEYS_INT : KEYS_DOUBLE;
  return KEYS_TAGGED;
}

/** Writes one key of a run whose keys `encoding` writes (keyEncodingOf). */
export function writeKey(encoding: number, key: Key, out: DataOutput): void {
  if (encoding === KEYS_STRING) out.writeString(key as string);
  else if (encoding === KEYS_INT) out.writeInt(key as number);
  else if (encoding === KEYS_DOUBLE) out.writeDouble(key as number);
  else writeTaggedKey(key, out);
}

export function writeTaggedKey(key: Key, out: DataOutput): void {
  switch (typeof key) {
    case 'string':
      out.writeByte(TAG_STRING);
      return out.writeString(key);
    case 'number':
      if (Number.isSafeInteger(key) && !Object.is(key, -0)) {
        out.writeByte(TAG_INT);
        return out.writeInt(key);
      }
      out.writeByte(TAG_DOUBLE);
      return out.writeDouble(key);
    case 'bigint':
      out.writeByte(TAG_BIGINT);
      return out.writeString(key.toString());
    case 'boolean':
      return out.writeByte(key ? TAG_TRUE : TAG_FALSE);
    case 'undefined':
      return out.writeByte(TAG_UNDEFINED);
    default:
      if (key === null) return out.writeByte(TAG_NULL);
      // Tables hold composite keys as strings: an array here is a bug, not user data.
      throw new SerializationError(`cannot write a state key: ${describeValue(key)}`, { actual: describeValue(key) });
  }
}

export function readKey(encoding: number, input: DataInput): Key {
  switch (encoding) {
    case KEYS_STRING:
      return input.readString();
    case KEYS_INT:
      return input.readInt();
    case KEYS_DOUBLE:
      return input.readDouble();
    default:
      return readTaggedKey(input);
  }
}

export function readTaggedKey(input: DataInput): Key {
  const at = input.pos;
  const tag = input.readByte();
  switch (tag) {
    case TAG_STRING:
      return input.readString();
    case TAG_INT:
      return input.readInt();
    case TAG_DOUBLE:
      return input.readDouble();
    case TAG_BIGINT: {
      const text = input.readString();
      if (!/^-?\d+$/.test(text)) input.fail(`a bigint key that is not a number (${JSON.stringify(text.slice(0, 24))})`, at);
      return BigInt(text);
    }
    case TAG_TRUE:
      return true;
    case TAG_FALSE:
      return false;
    case TAG_NULL:
      return null;
    case TAG_UNDEFINED:
      return undefined;
    default:
      return input.fail(`a key tag ${tag}`, at);
  }
}

export function isKeyEncoding(n: number): boolean {
  return n >= KEYS_STRING && n <= KEYS_TAGGED;
}
