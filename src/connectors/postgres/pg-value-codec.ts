import { parseArrayLiteral } from './pg-array-literal.ts';

/*
 * How each PostgreSQL type becomes a JS value. Both ways a row is read use these parsers on the
 * server's text output: a snapshot SELECT (pg's text format, with these as its type parsers) and
 * the pgoutput stream (text tuples). Both sessions run with SESSION_SETTINGS, so the server prints
 * a value the same way in both, and the same row gives the same values.
 *
 *   int2, int4, oid                       number
 *   int8                                  bigint, always (as BIGINT in the MySQL source)
 *   float4, float8                        number; 'NaN', 'Infinity', '-Infinity' as such; -0 is 0
 *                                         (float4 is the double nearest its shortest printed form)
 *   numeric                               string as printed, any precision ('-12.50', 'NaN')
 *   bool                                  boolean
 *   bytea                                 Buffer
 *   timestamptz                           'YYYY-MM-DDTHH:MM:SS[.f]Z' (UTC), as the MySQL source's
 *                                         TIMESTAMP; 'infinity', BC dates: as printed
 *   timestamp                             'YYYY-MM-DD HH:MM:SS[.f]'
 *   date, time, timetz                    as printed ('2024-02-29', '13:45:00.5', '13:45:00+02')
 *   interval                              ISO 8601 as printed ('P1Y2M3DT4H5M6.5S')
 *   text, varchar, char (padded), name,   string
 *   uuid, json, jsonb, inet, cidr,
 *   money (lc_monetary C: '$1,234.56'),
 *   enums, anything else
 *   arrays                                nested JS arrays of the element's values, null for NULL
 *   domains                               as their base type
 *   NULL                                  null
 */

/** Session settings under which the parsers below read the server's text output. */
export const SESSION_SETTINGS: Readonly<Record<string, string>> = {
  DateStyle: 'ISO',
  TimeZone: 'UTC',
  IntervalStyle: 'iso_8601',
  extra_float_digits: '1',
  bytea_output: 'hex',
  lc_monetary: 'C',
  client_encoding: 'UTF8',
  // Chunk bounds are inlined into COPY statements as '…' literals, backslashes kept as they are.
  standard_conforming_strings: 'on',
};

/** SESSION_SETTINGS as a startup `options` string (`-c name=value ...`). */
export function sessionOptions(): string {
  return Object.entries(SESSION_SETTINGS)
    .map(([k, v]) => `-c ${k}=${v}`)
    .join(' ');
}

export type PgValueParser = (text: string) => unknown;

const asString: PgValueParser = (s) => s;

function parseFloatText(s: string): number {
  if (s === 'NaN') return NaN;
  if (s === 'Infinity') return Infinity;
  if (s === '-Infinity') return -Infinity;
  return Number(s) + 0;
}

const TIMESTAMPTZ_UTC = /^(\d{4,}-\d\d-\d\d) (\d\d:\d\d:\d\d(?:\.\d+)?)\+00$/;

function timestamptzText(s: string): string {
  const m = TIMESTAMPTZ_UTC.exec(s);
  return m ? `${m[1]}T${m[2]}Z` : s;
}

function byteaText(s: string): Buffer {
  if (!s.startsWith('\\x')) throw new Error(`bytea value not in hex output format (bytea_output must be hex): ${s.slice(0, 20)}`);
  return Buffer.from(s.slice(2), 'hex');
}

/** Parsers of pg_catalog's base types by name; a type not listed is read as its text. */
export const BASE_TYPE_PARSERS: Readonly<Record<string, PgValueParser>> = {
  int2: Number,
  int4: Number,
  oid: Number,
  int8: BigInt,
  float4: parseFloatText,
  float8: parseFloatText,
  numeric: asString,
  bool: (s) => s === 't',
  bytea: byteaText,
  timestamptz: timestamptzText,
};

/** What the catalog says about one type (pg_type). */
export interface PgTypeInfo {
  readonly oid: number;
  readonly schema: string;
  readonly name: string;
  /** typtype: 'b' base, 'e' enum, 'd' domain, 'c' composite, 'r' range, 'm' multirange, 'p' pseudo. */
  readonly typtype: string;
  /** typcategory: 'A' marks arrays. */
  readonly category: string;
  readonly elementOid: number;
  readonly baseOid: number;
  readonly delimiter: string;
}

/** A parser per type, built from catalog entries (unknown types read as text). */
export function parserForType(oid: number, lookup: (oid: number) => PgTypeInfo | undefined): PgValueParser {
  const t = lookup(oid);
  if (!t) return asString;
  if (t.typtype === 'd' && t.baseOid !== 0) return parserForType(t.baseOid, lookup);
  if (t.category === 'A' && t.elementOid !== 0) {
    const element = parserForType(t.elementOid, lookup);
    const delimiter = lookup(t.elementOid)?.delimiter ?? ',';
    return (s) => parseArrayLiteral(s, element, delimiter);
  }
  if (t.schema === 'pg_catalog') return BASE_TYPE_PARSERS[t.name] ?? asString;
  return asString;
}
