import { BinaryReader } from './binary-reader.ts';
import { readBinaryDecimal } from './binlog-decimal.ts';
import { ColumnTypeCode as T } from './column-type-code.ts';

/*
 * MySQL 8 stores JSON columns in its binary JSON format, and row images carry that format. This
 * turns it into JSON text shaped like MySQL prints a JSON column (`{"a": 1, "b": [1, 2]}`: ", "
 * and ": " separators, keys in stored order, doubles with ".0" when integral), so a SELECT and
 * the binlog agree. MariaDB stores JSON as LONGTEXT and never reaches this code.
 *
 * NOT TESTED against a MySQL server (none is installed where this was written).
 */

const SMALL_OBJECT = 0x0;
const LARGE_OBJECT = 0x1;
const SMALL_ARRAY = 0x2;
const LARGE_ARRAY = 0x3;
const LITERAL = 0x4;
const INT16 = 0x5;
const UINT16 = 0x6;
const INT32 = 0x7;
const UINT32 = 0x8;
const INT64 = 0x9;
const UINT64 = 0xa;
const DOUBLE = 0xb;
const STRING = 0xc;
const OPAQUE = 0xf;

export function binaryJsonToText(data: Buffer): string {
  // An empty value is what MySQL logs for a JSON null written by some code paths.
  if (data.length === 0) return 'null';
  return value(data[0]!, data, 1);
}

function value(type: number, data: Buffer, at: number): string {
  switch (type) {
    case SMALL_OBJECT:
    case LARGE_OBJECT:
      return container(data, at, type === LARGE_OBJECT, true);
    case SMALL_ARRAY:
    case LARGE_ARRAY:
      return container(data, at, type === LARGE_ARRAY, false);
    case LITERAL:
      return literal(data[at]!);
    case INT16:
      return String(data.readInt16LE(at));
    case UINT16:
      return String(data.readUInt16LE(at));
    case INT32:
      return String(data.readInt32LE(at));
    case UINT32:
      return String(data.readUInt32LE(at));
    case INT64:
      return String(data.readBigInt64LE(at));
    case UINT64:
      return String(data.readBigUInt64LE(at));
    case DOUBLE:
      return formatDouble(data.readDoubleLE(at));
    case STRING: {
      const { length, next } = varLength(data, at);
      return quote(data.toString('utf8', next, next + length));
    }
    case OPAQUE:
      return opaque(data, at);
    default:
      throw new Error(`unknown binary JSON value type 0x${type.toString(16)}`);
  }
}

function literal(v: number): string {
  if (v === 0) return 'null';
  if (v === 1) return 'true';
  if (v === 2) return 'false';
  throw new Error(`unknown binary JSON literal 0x${v.toString(16)}`);
}

/** Objects and arrays: count, size, [key entries], value entries, then keys and values; offsets from `at`. */
function container(data: Buffer, at: number, large: boolean, object: boolean): string {
  const size = large ? 4 : 2;
  const read = (p: number) => (large ? data.readUInt32LE(p) : data.readUInt16LE(p));
  const count = read(at);
  const keyEntries = at + 2 * size;
  const valueEntries = keyEntries + (object ? count * (size + 2) : 0);
  const parts: string[] = [];
  for (let i = 0; i < count; i++) {
    const entry = valueEntries + i * (1 + size);
    const type = data[entry]!;
    const inlined = type === LITERAL || type === INT16 || type === UINT16 || (large && (type === INT32 || type === UINT32));
    const v = value(type, data, inlined ? entry + 1 : at + read(entry + 1));
    if (!object) {
      parts.push(v);
      continue;
    }
    const k = keyEntries + i * (size + 2);
    const keyAt = at + read(k);
    parts.push(`${quote(data.toString('utf8', keyAt, keyAt + data.readUInt16LE(k + size)))}: ${v}`);
  }
  return object ? `{${parts.join(', ')}}` : `[${parts.join(', ')}]`;
}

/** Lengths of strings and opaque values: 7 bits a byte, low bits first, high bit = more. */
function varLength(data: Buffer, at: number): { length: number; next: number } {
  let length = 0;
  for (let i = 0; i < 5; i++) {
    const b = data[at + i]!;
    length += (b & 0x7f) * 2 ** (7 * i);
    if ((b & 0x80) === 0) return { length, next: at + i + 1 };
  }
  throw new Error('binary JSON length longer than 5 bytes');
}

function opaque(data: Buffer, at: number): string {
  const fieldType = data[at]!;
  const { length, next } = varLength(data, at + 1);
  const bytes = data.subarray(next, next + length);
  switch (fieldType) {
    case T.NEWDECIMAL:
      return readBinaryDecimal(new BinaryReader(bytes, 2), bytes[0]!, bytes[1]!);
    case T.DATE:
      return quote(packedDatetime(bytes.readBigInt64LE(0)).slice(0, 10));
    case T.DATETIME:
    case T.TIMESTAMP:
      return quote(packedDatetime(bytes.readBigInt64LE(0)));
    case T.TIME:
      return quote(packedTime(bytes.readBigInt64LE(0)));
    default:
      return quote(`base64:type${fieldType}:${bytes.toString('base64')}`);
  }
}

const pad = (n: bigint | number, w = 2) => String(n).padStart(w, '0');

/** TIME_from_longlong_datetime_packed; printed with six fractional digits as MySQL does in JSON. */
function packedDatetime(packed: bigint): string {
  const v = packed < 0n ? -packed : packed;
  const micros = v % (1n << 24n);
  const ymdhms = v >> 24n;
  const ymd = ymdhms >> 17n;
  const ym = ymd >> 5n;
  const hms = ymdhms % (1n << 17n);
  return `${pad(ym / 13n, 4)}-${pad(ym % 13n)}-${pad(ymd % 32n)} ${pad(hms >> 12n)}:${pad((hms >> 6n) % 64n)}:${pad(hms % 64n)}.${pad(micros, 6)}`;
}

function packedTime(packed: bigint): string {
  const v = packed < 0n ? -packed : packed;
  const micros = v % (1n << 24n);
  const hms = v >> 24n;
  return `${packed < 0n ? '-' : ''}${pad((hms >> 12n) % 1024n)}:${pad((hms >> 6n) % 64n)}:${pad(hms % 64n)}.${pad(micros, 6)}`;
}

function formatDouble(d: number): string {
  const s = String(d).replace('e+', 'e');
  return /[.e]/.test(s) ? s : `${s}.0`;
}

function quote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\b') out += '\\b';
    else if (ch === '\f') out += '\\f';
    else if (c < 0x20) out += `\\u${c.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}
