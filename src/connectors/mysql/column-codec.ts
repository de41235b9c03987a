import type { TypeCast, TypeCastField, TypeCastNext } from 'mysql2';
import type { BinaryReader } from './binary-reader.ts';
import { readBinaryDecimal } from './binlog-decimal.ts';
import { readDate, readDatetime2, readOldDatetime, readOldTime, readOldTimestamp, readTime2, readTimestamp2 } from './binlog-temporal.ts';
import { ColumnTypeCode as T } from './column-type-code.ts';
import { roundDecimals, roundSignificant } from './float-rounding.ts';
import { binaryJsonToText } from './mysql-binary-json.ts';
import type { QueryRunner } from './query-runner.ts';
import type { BinlogColumn } from './table-map.ts';
import type { ColumnSchema } from './table-schema.ts';

/*
 * How each SQL type becomes a JS value, for both ways a row is read: a SELECT through mysql2 (the
 * text protocol: `snapshotTypeCast`) and a binlog row image (`binlogValueDecoder`). The same row
 * gives the same values both ways; where they could differ, the SELECT is authoritative.
 *
 *   TINYINT..INT (signed, unsigned), YEAR      number
 *   BIGINT (signed, unsigned)                 bigint, always
 *   FLOAT                                     number: the float rounded to 6 significant digits
 *                                             (half to even), which is what the server prints
 *   FLOAT(M,D), DOUBLE(M,D)                   number: rounded to D decimals, as printed
 *   DOUBLE                                    number: the exact double (the server prints enough
 *                                             digits to round-trip); -0 becomes 0 everywhere
 *   DECIMAL(p,s)                              string with exactly s decimals ('-12.50'), no leading
 *                                             zeros (ZEROFILL's padding is dropped: '0123.4569' is
 *                                             '123.4569', as in the binlog)
 *   CHAR, VARCHAR, TEXT family, ENUM, SET     string (SET: members in definition order, ',')
 *   BINARY, VARBINARY, BLOB family, GEOMETRY  Buffer (BINARY(n) is n bytes, zero padded)
 *   DATE                                      'YYYY-MM-DD'
 *   DATETIME(fsp)                             'YYYY-MM-DD HH:MM:SS[.f]', exactly fsp digits
 *   TIMESTAMP(fsp)                            'YYYY-MM-DDTHH:MM:SS[.f]Z' (UTC)
 *   TIME(fsp)                                 '[-]HH:MM:SS[.f]', hours up to 838
 *   zero dates                                as the server prints them ('0000-00-00 00:00:00')
 *   BIT(1)                                    boolean; BIT(n > 1): bigint
 *   JSON                                      string: MariaDB's stored text; MySQL's as printed
 *   NULL                                      null
 */

// ---------------------------------------------------------------------------------------------
// The SELECT side.

/**
 * A mysql2 `typeCast` giving the values above. Needs a session in UTC (TIMESTAMP) and with
 * utf8mb4 results, which is mysql2's default charset: see prepareSnapshotConnection.
 */
export const snapshotTypeCast: TypeCast = (field: TypeCastField, next: TypeCastNext): unknown => {
  switch (field.type) {
    case 'TINY':
    case 'SHORT':
    case 'INT24':
    case 'LONG':
    case 'YEAR':
      return map(field.string('ascii'), Number);
    case 'LONGLONG':
      return map(field.string('ascii'), BigInt);
    case 'FLOAT':
    case 'DOUBLE':
      return map(field.string('ascii'), (s) => Number(s) + 0);
    case 'DECIMAL':
    case 'NEWDECIMAL':
      return map(field.string('ascii'), unpaddedDecimal);
    case 'DATE':
    case 'NEWDATE':
    case 'DATETIME':
    case 'DATETIME2':
    case 'TIME':
    case 'TIME2':
      return field.string('ascii');
    case 'TIMESTAMP':
    case 'TIMESTAMP2':
      return map(field.string('ascii'), timestampFromText);
    case 'BIT':
      return map(field.buffer(), (b) => bitValue(b, field.length));
    case 'JSON':
    case 'ENUM':
    case 'SET':
      return field.string('utf8');
    case 'GEOMETRY':
      return map(field.buffer(), copy);
    default:
      // MariaDB marks its JSON (a LONGTEXT) in the extended metadata; mysql2 would parse it.
      if (field.extendedFormat === 'json') return field.string('utf8');
      // Strings and blobs: mysql2 returns a Buffer for the binary charset, else a string.
      return next();
  }
};

/** What a SELECT session needs for snapshotTypeCast: UTC for TIMESTAMP, utf8mb4 results. */
export const SNAPSHOT_SESSION_STATEMENTS: readonly string[] = ['SET NAMES utf8mb4', "SET time_zone = '+00:00'"];

export async function prepareSnapshotConnection(conn: QueryRunner): Promise<void> {
  for (const sql of SNAPSHOT_SESSION_STATEMENTS) await conn.query(sql);
}

function map<V, R>(v: V | null, f: (v: V) => R): R | null {
  return v === null ? null : f(v);
}

/** A DECIMAL's text without the zeros ZEROFILL pads its integer part with; one zero stays before the point. */
export function unpaddedDecimal(s: string): string {
  const start = s.charCodeAt(0) === 0x2d ? 1 : 0; // '-'
  let i = start;
  while (i < s.length - 1 && s.charCodeAt(i) === 0x30 && s.charCodeAt(i + 1) !== 0x2e) i++; // '0' not before '.'
  return i === start ? s : s.slice(0, start) + s.slice(i);
}

function timestampFromText(s: string): string {
  return s.startsWith('0000-00-00') ? s : `${s.replace(' ', 'T')}Z`;
}

function copy(b: Buffer): Buffer {
  return Buffer.from(b);
}

/** BIT(1) is a flag; wider BIT columns are unsigned big-endian numbers. */
function bitValue(bytes: Buffer, bits: number): boolean | bigint {
  if (bits === 1) return bytes.some((b) => b !== 0);
  let v = 0n;
  for (const b of bytes) v = (v << 8n) | BigInt(b);
  return v;
}

// ---------------------------------------------------------------------------------------------
// The binlog side.

/** A function reading one non-null value of a column from a row image. */
export type BinlogValueDecoder = (r: BinaryReader) => unknown;

/**
 * Whether a TABLE_MAP column can be the schema's column: a mismatch means the cached schema is
 * older or newer than the event. Types this file does not know (MariaDB's UUID, INET6, ...) fit
 * anything and are decoded by their binlog type.
 */
export function binlogTypeFits(column: ColumnSchema, b: BinlogColumn): boolean {
  const expected = EXPECTED_BINLOG_TYPES[column.dataType];
  return expected === undefined || expected.includes(b.type);
}

const TEXTS = [T.BLOB];
const EXPECTED_BINLOG_TYPES: Record<string, readonly number[]> = {
  tinyint: [T.TINY],
  smallint: [T.SHORT],
  mediumint: [T.INT24],
  int: [T.LONG],
  integer: [T.LONG],
  bigint: [T.LONGLONG],
  float: [T.FLOAT],
  double: [T.DOUBLE],
  decimal: [T.NEWDECIMAL],
  year: [T.YEAR],
  date: [T.DATE, T.NEWDATE],
  datetime: [T.DATETIME2, T.DATETIME],
  timestamp: [T.TIMESTAMP2, T.TIMESTAMP],
  time: [T.TIME2, T.TIME],
  bit: [T.BIT],
  char: [T.STRING],
  binary: [T.STRING],
  varchar: [T.VARCHAR],
  varbinary: [T.VARCHAR],
  tinytext: TEXTS,
  text: TEXTS,
  mediumtext: TEXTS,
  longtext: TEXTS,
  tinyblob: TEXTS,
  blob: TEXTS,
  mediumblob: TEXTS,
  longblob: TEXTS,
  enum: [T.ENUM],
  set: [T.SET],
  json: [T.JSON, T.BLOB],
  geometry: [T.GEOMETRY],
  point: [T.GEOMETRY],
  linestring: [T.GEOMETRY],
  polygon: [T.GEOMETRY],
  multipoint: [T.GEOMETRY],
  multilinestring: [T.GEOMETRY],
  multipolygon: [T.GEOMETRY],
  geometrycollection: [T.GEOMETRY],
  geomcollection: [T.GEOMETRY],
};

/** Builds the reader of one column's values; call binlogTypeFits first. */
export function binlogValueDecoder(column: ColumnSchema, b: BinlogColumn): BinlogValueDecoder {
  const unsigned = column.unsigned;
  switch (b.type) {
    case T.TINY:
      return unsigned ? (r) => r.u8() : (r) => r.intLE(1);
    case T.SHORT:
      return unsigned ? (r) => r.u16() : (r) => r.intLE(2);
    case T.INT24:
      return unsigned ? (r) => r.uintLE(3) : (r) => r.intLE(3);
    case T.LONG:
      return unsigned ? (r) => r.u32() : (r) => r.intLE(4);
    case T.LONGLONG:
      return unsigned ? (r) => r.u64() : (r) => r.i64();
    case T.FLOAT: {
      const decimals = fixedDecimals(column);
      return decimals === null ? (r) => roundSignificant(r.f32(), 6) : (r) => roundDecimals(r.f32(), decimals);
    }
    case T.DOUBLE: {
      const decimals = fixedDecimals(column);
      return decimals === null ? (r) => r.f64() + 0 : (r) => roundDecimals(r.f64(), decimals);
    }
    case T.NEWDECIMAL:
      return (r) => readBinaryDecimal(r, b.precision, b.scale);
    case T.YEAR:
      return (r) => {
        const v = r.u8();
        return v === 0 ? 0 : 1900 + v;
      };
    case T.DATE:
    case T.NEWDATE:
      return readDate;
    case T.DATETIME2:
      return (r) => readDatetime2(r, b.scale);
    case T.TIMESTAMP2:
      return (r) => readTimestamp2(r, b.scale);
    case T.TIME2:
      return (r) => readTime2(r, b.scale);
    case T.DATETIME:
      return readOldDatetime;
    case T.TIMESTAMP:
      return readOldTimestamp;
    case T.TIME:
      return readOldTime;
    case T.BIT: {
      const bits = column.precision ?? b.scale * 8 + b.precision;
      const bytes = b.scale + (b.precision > 0 ? 1 : 0);
      return (r) => bitValue(r.bytes(bytes), bits);
    }
    case T.ENUM:
      return (r) => {
        const index = r.uintLE(b.maxLength);
        // Index 0 is the empty string stored for an invalid value in non-strict mode.
        return index === 0 ? '' : (column.members[index - 1] ?? '');
      };
    case T.SET:
      return (r) => setValue(r.bytes(b.maxLength), column.members);
    case T.VARCHAR:
    case T.STRING:
      return stringDecoder(column, b.maxLength > 255 ? 2 : 1);
    case T.BLOB:
      return stringDecoder(column, b.packLength);
    case T.JSON:
      return (r) => binaryJsonToText(r.bytes(r.uintLE(b.packLength)));
    case T.GEOMETRY:
      return (r) => copy(r.bytes(r.uintLE(b.packLength)));
    default:
      throw new Error(`column ${column.name} (${column.columnType}): binlog column type ${b.type} is not supported`);
  }
}

/** D of FLOAT(M,D) / DOUBLE(M,D): the server prints exactly D decimals. */
function fixedDecimals(column: ColumnSchema): number | null {
  const m = /^(?:float|double|real)(?: precision)?\(\d+,(\d+)\)/i.exec(column.columnType);
  return m ? Number(m[1]) : null;
}

function setValue(bitmap: Buffer, members: readonly string[]): string {
  const chosen: string[] = [];
  for (let i = 0; i < members.length; i++) if (bitmap[i >> 3]! & (1 << (i & 7))) chosen.push(members[i]!);
  return chosen.join(',');
}

/** Length-prefixed bytes: text in the column's charset, or a Buffer for binary columns. */
function stringDecoder(column: ColumnSchema, prefixBytes: number): BinlogValueDecoder {
  if (column.charset === null || column.charset === 'binary') {
    // The binlog drops BINARY(n)'s trailing zero bytes; a SELECT returns all n.
    const padTo = column.dataType === 'binary' ? (column.octetLength ?? 0) : 0;
    return (r) => {
      const bytes = r.bytes(r.uintLE(prefixBytes));
      if (bytes.length >= padTo) return copy(bytes);
      const padded = Buffer.alloc(padTo);
      bytes.copy(padded);
      return padded;
    };
  }
  const decode = charsetDecoder(column);
  return (r) => decode(r.bytes(r.uintLE(prefixBytes)));
}

// MySQL's charset names -> WHATWG labels (latin1 and ascii are decoded by cp1252 below).
const CHARSET_LABELS: Record<string, string> = {
  cp1250: 'windows-1250',
  cp1251: 'windows-1251',
  cp1256: 'windows-1256',
  cp1257: 'windows-1257',
  latin2: 'iso-8859-2',
  latin5: 'windows-1254',
  latin7: 'iso-8859-13',
  greek: 'iso-8859-7',
  hebrew: 'iso-8859-8',
  koi8r: 'koi8-r',
  koi8u: 'koi8-u',
  cp866: 'ibm866',
  macroman: 'macintosh',
  sjis: 'shift_jis',
  cp932: 'shift_jis',
  ujis: 'euc-jp',
  eucjpms: 'euc-jp',
  euckr: 'euc-kr',
  gbk: 'gbk',
  gb2312: 'gbk',
  gb18030: 'gb18030',
  big5: 'big5',
  utf16: 'utf-16be',
  ucs2: 'utf-16be',
  utf16le: 'utf-16le',
};

function charsetDecoder(column: ColumnSchema): (b: Buffer) => string {
  const charset = column.charset!;
  if (charset === 'utf8' || charset === 'utf8mb3' || charset === 'utf8mb4') return (b) => b.toString('utf8');
  if (charset === 'latin1' || charset === 'ascii') return cp1252;
  if (charset === 'utf32') return (b) => String.fromCodePoint(...Array.from({ length: b.length / 4 }, (_, i) => b.readUInt32BE(i * 4)));
  const label = CHARSET_LABELS[charset];
  if (!label) throw new Error(`column ${column.name}: charset ${charset} is not supported`);
  const decoder = new TextDecoder(label);
  return (b) => decoder.decode(b);
}

/*
 * MySQL's latin1 is cp1252: 0x80 is the euro sign, and the server converts it so for a SELECT.
 * Node's TextDecoder('windows-1252') decodes ISO-8859-1 instead, hence this table for 0x80-0x9f
 * (the five bytes cp1252 leaves undefined map to the C1 controls, as in MySQL).
 */
const CP1252_HIGH = [
  0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152, 0x8d, 0x17d, 0x8f,
  0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x2dc, 0x2122, 0x161, 0x203a, 0x153, 0x9d, 0x17e, 0x178,
];

function cp1252(b: Buffer): string {
  const s = b.toString('latin1');
  return /[\x80-\x9f]/.test(s) ? s.replace(/[\x80-\x9f]/g, (c) => String.fromCharCode(CP1252_HIGH[c.charCodeAt(0) - 0x80]!)) : s;
}
