import type { Key } from '../key-group.ts';

/**
 * How the lmdb backend lays out a state's entry key in the store:
 *
 *   [key group u16 BE][state id u16 BE][tag u8][key bytes]
 *
 * The key group comes first, big-endian, so a subtask's key groups are one contiguous range of
 * the store, and within a key group each state's entries are contiguous: a snapshot reads one
 * key group of one state as one range scan, in the order the state file writes them. The key is
 * the state table's form of it (state-key.ts: a composite key is already a string); the tag says
 * its type, so it comes back exactly (1 and "1" differ).
 */
export const PREFIX_BYTES = 4;

const TAG_STRING = 1;
const TAG_NUMBER = 2;
const TAG_BIGINT = 3;
const TAG_TRUE = 4;
const TAG_FALSE = 5;
const TAG_NULL = 6;
const TAG_UNDEFINED = 7;

/** The first key of a state's entries in a key group (no entry sorts before it). */
export function statePrefix(keyGroup: number, stateId: number): Buffer {
  const b = Buffer.allocUnsafe(PREFIX_BYTES);
  b.writeUInt16BE(keyGroup, 0);
  b.writeUInt16BE(stateId, 2);
  return b;
}

export function encodeStateKey(keyGroup: number, stateId: number, key: Key): Buffer {
  switch (typeof key) {
    case 'string': {
      const b = Buffer.allocUnsafe(PREFIX_BYTES + 1 + Buffer.byteLength(key));
      writePrefix(b, keyGroup, stateId, TAG_STRING);
      b.write(key, PREFIX_BYTES + 1, 'utf8');
      return b;
    }
    case 'number': {
      const b = Buffer.allocUnsafe(PREFIX_BYTES + 1 + 8);
      writePrefix(b, keyGroup, stateId, TAG_NUMBER);
      // As a Map compares keys (SameValueZero): -0 is 0, and every NaN is one key.
      b.writeDoubleBE(key === 0 ? 0 : Number.isNaN(key) ? Number.NaN : key, PREFIX_BYTES + 1);
      return b;
    }
    case 'bigint': {
      const digits = key.toString();
      const b = Buffer.allocUnsafe(PREFIX_BYTES + 1 + digits.length);
      writePrefix(b, keyGroup, stateId, TAG_BIGINT);
      b.write(digits, PREFIX_BYTES + 1, 'latin1');
      return b;
    }
    case 'boolean':
      return tagOnly(keyGroup, stateId, key ? TAG_TRUE : TAG_FALSE);
    case 'undefined':
      return tagOnly(keyGroup, stateId, TAG_UNDEFINED);
    default:
      if (key === null) return tagOnly(keyGroup, stateId, TAG_NULL);
      throw new TypeError(`a state key must be a primitive or a composite key's string (state-key.ts), got ${typeof key}`);
  }
}

/** The key of an entry key made by encodeStateKey. */
export function decodeStateKey(b: Uint8Array): Key {
  const buf = Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  const tag = buf[PREFIX_BYTES];
  switch (tag) {
    case TAG_STRING:
      return buf.toString('utf8', PREFIX_BYTES + 1);
    case TAG_NUMBER:
      return buf.readDoubleBE(PREFIX_BYTES + 1);
    case TAG_BIGINT:
      return BigInt(buf.toString('latin1', PREFIX_BYTES + 1));
    case TAG_TRUE:
      return true;
    case TAG_FALSE:
      return false;
    case TAG_NULL:
      return null;
    case TAG_UNDEFINED:
      return undefined;
    default:
      throw new Error(`an lmdb state key with tag ${tag}: the store was not written by this backend`);
  }
}

function writePrefix(b: Buffer, keyGroup: number, stateId: number, tag: number): void {
  b.writeUInt16BE(keyGroup, 0);
  b.writeUInt16BE(stateId, 2);
  b[PREFIX_BYTES] = tag;
}

function tagOnly(keyGroup: number, stateId: number, tag: number): Buffer {
  const b = Buffer.allocUnsafe(PREFIX_BYTES + 1);
  writePrefix(b, keyGroup, stateId, tag);
  return b;
}
