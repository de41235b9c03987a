import { randomUUID } from 'node:crypto';
import { ExactDecimal } from './exact-decimal.ts';
import { ExpressionEvaluationError } from './expression-error.ts';
import { compileDateFormatter, compileDateParser, type DateFormatter, type DateParser } from './java-date-pattern.ts';
import { formatDate, formatInstant, formatTime, formatTimestamp, parseDateTimeMs, parseTimeMs } from './temporal-text.ts';
import { instantToLocal, localToInstant, zoneOffsetMs } from './time-zone.ts';

/**
 * The helpers generated expression code calls (as `rt.name(...)`): each takes and gives the run-time
 * values of sql-type.ts and does SQL's NULL handling itself, so the generated code stays a plain
 * nesting of calls. Small and monomorphic where it matters, so V8 inlines them.
 */

/** What a compiled transform reads the time and zone from (NOW(), LOCALTIMESTAMP, DATE_FORMAT of an instant). */
export interface EvaluationContext {
  /** Milliseconds since the epoch. */
  readonly clock: () => number;
  /** The pipeline's `local-time-zone` (an IANA id or an offset). */
  readonly timeZone: string;
}

type N<V> = V | null;
const INT_MIN_BIG = -9223372036854775808n;

function divisionByZero(): never {
  throw new ExpressionEvaluationError('division-by-zero', 'division by zero');
}

// --- conversions ---------------------------------------------------------------------------------

function dec(v: unknown): N<ExactDecimal> {
  if (v === null || v === undefined) return null;
  if (v instanceof ExactDecimal) return v;
  if (typeof v === 'string') {
    const d = ExactDecimal.parse(v);
    if (!d) throw new ExpressionEvaluationError('not-a-decimal', `'${v}' is no decimal number`);
    return d;
  }
  if (typeof v === 'bigint') return ExactDecimal.fromInteger(v);
  if (typeof v === 'number') return Number.isInteger(v) ? ExactDecimal.fromInteger(v) : ExactDecimal.fromDouble(v);
  throw new ExpressionEvaluationError('not-a-decimal', `${typeof v} is no decimal number`);
}

/** MySQL's TINYINT(1) and BIT(1) are BOOLEAN to Flink CDC; weir's MySQL source reads TINYINT(1) as 0/1. */
function bool(v: unknown): N<boolean> {
  if (v === null || v === undefined) return null;
  return typeof v === 'boolean' ? v : v !== 0 && v !== 0n;
}

function big(v: unknown): N<bigint> {
  if (v === null || v === undefined) return null;
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number') return BigInt(Math.trunc(v));
  if (v instanceof ExactDecimal) return v.toBigInt();
  return BigInt(String(v));
}

function num(v: unknown): N<number> {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number') return v;
  if (v instanceof ExactDecimal) return v.toNumber();
  return Number(v);
}

/** A DECIMAL leaving an expression: its text at the column's scale (half up), as the sources print DECIMAL. */
function decOut(v: N<ExactDecimal>, scale: number): N<string> {
  return v === null ? null : v.withScale(scale, 'HALF_UP').toString();
}

/** Java's Double.toString: '2.0', '1.0E10', '1.0E-5'. */
function javaDouble(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? 'Infinity' : '-Infinity';
  if (v === 0) return Object.is(v, -0) ? '-0.0' : '0.0';
  const a = Math.abs(v);
  if (a >= 1e-3 && a < 1e7) return Number.isInteger(v) ? `${v}.0` : String(v);
  const [m, e] = v.toExponential().split('e') as [string, string];
  return `${m.includes('.') ? m : `${m}.0`}E${e.startsWith('+') ? e.slice(1) : e}`;
}

function str(v: unknown): N<string> {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return Number.isInteger(v) && Math.abs(v) < 2 ** 53 ? String(v) : javaDouble(v);
  if (Buffer.isBuffer(v)) return v.toString('utf8');
  return String(v);
}

/** CAST(double AS STRING): Java's text of a double. */
function dblStr(v: N<number>): N<string> {
  return v === null ? null : javaDouble(v);
}

// --- arithmetic ----------------------------------------------------------------------------------

const iadd = (a: N<number>, b: N<number>): N<number> => (a === null || b === null ? null : (a + b) | 0);
const isub = (a: N<number>, b: N<number>): N<number> => (a === null || b === null ? null : (a - b) | 0);
const imul = (a: N<number>, b: N<number>): N<number> => (a === null || b === null ? null : Math.imul(a, b));
const idiv = (a: N<number>, b: N<number>): N<number> => (a === null || b === null ? null : b === 0 ? divisionByZero() : (a / b) | 0);
const imod = (a: N<number>, b: N<number>): N<number> => (a === null || b === null ? null : b === 0 ? divisionByZero() : a % b);
const ineg = (a: N<number>): N<number> => (a === null ? null : -a | 0);
const ladd = (a: N<bigint>, b: N<bigint>): N<bigint> => (a === null || b === null ? null : BigInt.asIntN(64, a + b));
const lsub = (a: N<bigint>, b: N<bigint>): N<bigint> => (a === null || b === null ? null : BigInt.asIntN(64, a - b));
const lmul = (a: N<bigint>, b: N<bigint>): N<bigint> => (a === null || b === null ? null : BigInt.asIntN(64, a * b));
const ldiv = (a: N<bigint>, b: N<bigint>): N<bigint> => (a === null || b === null ? null : b === 0n ? divisionByZero() : BigInt.asIntN(64, a / b));
const lmod = (a: N<bigint>, b: N<bigint>): N<bigint> => (a === null || b === null ? null : b === 0n ? divisionByZero() : a % b);
const lneg = (a: N<bigint>): N<bigint> => (a === null ? null : BigInt.asIntN(64, -a));
const dadd = (a: N<number>, b: N<number>): N<number> => (a === null || b === null ? null : a + b);
const dsub = (a: N<number>, b: N<number>): N<number> => (a === null || b === null ? null : a - b);
const dmul = (a: N<number>, b: N<number>): N<number> => (a === null || b === null ? null : a * b);
const ddiv = (a: N<number>, b: N<number>): N<number> => (a === null || b === null ? null : a / b);
const dmod = (a: N<number>, b: N<number>): N<number> => (a === null || b === null ? null : a % b);
const dneg = (a: N<number>): N<number> => (a === null ? null : -a);
const xadd = (a: N<ExactDecimal>, b: N<ExactDecimal>): N<ExactDecimal> => (a === null || b === null ? null : a.add(b));
const xsub = (a: N<ExactDecimal>, b: N<ExactDecimal>): N<ExactDecimal> => (a === null || b === null ? null : a.subtract(b));
const xmul = (a: N<ExactDecimal>, b: N<ExactDecimal>): N<ExactDecimal> => (a === null || b === null ? null : a.multiply(b));
function xdiv(a: N<ExactDecimal>, b: N<ExactDecimal>, scale: number): N<ExactDecimal> {
  if (a === null || b === null) return null;
  return a.divide(b, scale, 'DOWN') ?? divisionByZero();
}
const xmod = (a: N<ExactDecimal>, b: N<ExactDecimal>): N<ExactDecimal> => (a === null || b === null ? null : (a.remainder(b) ?? divisionByZero()));
const xneg = (a: N<ExactDecimal>): N<ExactDecimal> => (a === null ? null : a.negate());

// --- comparison (NaN stands for "a NULL was compared": every test of it is false) ----------------

function cmp(a: unknown, b: unknown): number {
  if (a === null || b === null) return NaN;
  // eslint-disable-next-line eqeqeq -- a bigint equals a number of the same value
  return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : (a as number) == (b as number) ? 0 : NaN;
}
function xcmp(a: N<ExactDecimal>, b: N<ExactDecimal>): number {
  return a === null || b === null ? NaN : a.compare(b);
}
function tcmp(a: N<string>, b: N<string>): number {
  return a === null || b === null ? NaN : cmp(parseDateTimeMs(a), parseDateTimeMs(b));
}
function timeCmp(a: N<string>, b: N<string>): number {
  return a === null || b === null ? NaN : cmp(parseTimeMs(a), parseTimeMs(b));
}
function bytesCmp(a: N<Buffer>, b: N<Buffer>): number {
  return a === null || b === null ? NaN : Buffer.compare(a, b);
}
const ne = (c: number): boolean => c === c && c !== 0;

// --- logic ---------------------------------------------------------------------------------------

const not = (a: N<boolean>): N<boolean> => (a === null ? null : !a);

// --- strings -------------------------------------------------------------------------------------

const upper = (s: N<string>): N<string> => (s === null ? null : s.toUpperCase());
const lower = (s: N<string>): N<string> => (s === null ? null : s.toLowerCase());
const charLength = (s: N<string>): N<number> => (s === null ? null : s.length);
const concat2 = (a: N<string>, b: N<string>): N<string> => (a === null || b === null ? null : a + b);
function concat(...parts: N<string>[]): N<string> {
  let s = '';
  for (const p of parts) {
    if (p === null) return null;
    s += p;
  }
  return s;
}
function concatWs(sep: N<string>, ...parts: N<string>[]): N<string> {
  if (sep === null) return null;
  return parts.filter((p) => p !== null).join(sep);
}

const WHITESPACE = ' \t\n\r\f\v';
function trim(s: N<string>, chars: N<string>, leading: boolean, trailing: boolean): N<string> {
  if (s === null || chars === null) return null;
  let a = 0;
  let b = s.length;
  if (leading) while (a < b && chars.includes(s[a]!)) a++;
  if (trailing) while (b > a && chars.includes(s[b - 1]!)) b--;
  return s.slice(a, b);
}

/** SUBSTR / SUBSTRING as Flink CDC: 1-based; a negative start counts from the end; 0 is 1. */
function substr(s: N<string>, begin: N<number>, length: N<number> = 2147483647): N<string> {
  if (s === null || begin === null || length === null) return null;
  if (length < 0) throw new ExpressionEvaluationError('negative-length', `SUBSTR length ${length} < 0`);
  let start: number;
  if (begin > 0) {
    start = begin - 1;
    if (start >= s.length) return '';
  } else if (begin < 0) {
    start = s.length + begin;
    if (start < 0) return '';
  } else start = 0;
  return s.slice(start, s.length - start < length ? s.length : start + length);
}

const REGEX_CACHE = new Map<string, RegExp | null>();
function regex(pattern: string): RegExp | null {
  let r = REGEX_CACHE.get(pattern);
  if (r === undefined) {
    try {
      r = new RegExp(pattern, 'gu');
    } catch {
      r = null;
    }
    if (REGEX_CACHE.size > 1000) REGEX_CACHE.clear();
    REGEX_CACHE.set(pattern, r);
  }
  return r;
}
function regexpReplace(s: N<string>, pattern: N<string>, replacement: N<string>): N<string> {
  if (s === null || pattern === null || replacement === null) return null;
  const r = regex(pattern);
  return r === null ? null : s.replace(r, () => replacement);
}
function regexpExtract(s: N<string>, pattern: N<string>, index: N<number> = 0): N<string> {
  if (s === null || pattern === null || index === null || index < 0) return null;
  const r = regex(pattern);
  if (r === null) return null;
  r.lastIndex = 0;
  const m = r.exec(s);
  return m && index < m.length ? (m[index] ?? null) : null;
}

const LIKE_CACHE = new Map<string, RegExp>();
/** SQL LIKE: % any run, _ one character, `escape` (by default a backslash, as in MySQL and PostgreSQL) before either takes it literally. */
export function likeRegExp(pattern: string, escape: string | null): RegExp {
  const key = `${escape ?? ''}\u0000${pattern}`;
  let r = LIKE_CACHE.get(key);
  if (!r) {
    let src = '^';
    for (let i = 0; i < pattern.length; i++) {
      const c = pattern[i]!;
      if (escape !== null && c === escape && i + 1 < pattern.length) src += pattern[++i]!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      else if (c === '%') src += '[\\s\\S]*';
      else if (c === '_') src += '[\\s\\S]';
      else src += c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    }
    r = new RegExp(src + '$', 'u');
    if (LIKE_CACHE.size > 1000) LIKE_CACHE.clear();
    LIKE_CACHE.set(key, r);
  }
  return r;
}
function like(s: N<string>, pattern: N<string>, escape: N<string> = '\\'): N<boolean> {
  if (s === null || pattern === null) return null;
  return likeRegExp(pattern, escape).test(s);
}
const likeRe = (s: N<string>, re: RegExp): N<boolean> => (s === null ? null : re.test(s));

function pad(s: N<string>, len: N<number>, fill: N<string>, left: boolean): N<string> {
  if (s === null || len === null || fill === null || len < 0) return null;
  if (s.length >= len) return s.slice(0, len);
  if (fill === '') return null;
  const padding = fill.repeat(Math.ceil((len - s.length) / fill.length)).slice(0, len - s.length);
  return left ? padding + s : s + padding;
}
const replace = (s: N<string>, from: N<string>, to: N<string>): N<string> => (s === null || from === null || to === null ? null : s.split(from).join(to));
const repeat = (s: N<string>, n: N<number>): N<string> => (s === null || n === null ? null : n <= 0 ? '' : s.repeat(n));
const left = (s: N<string>, n: N<number>): N<string> => (s === null || n === null ? null : n <= 0 ? '' : s.slice(0, n));
const right = (s: N<string>, n: N<number>): N<string> => (s === null || n === null ? null : n <= 0 ? '' : s.slice(Math.max(0, s.length - n)));
function locate(needle: N<string>, hay: N<string>, from: N<number> = 1): N<number> {
  if (needle === null || hay === null || from === null) return null;
  if (needle === '') return 1;
  const start = Math.max(from - 1, 0);
  if (start > hay.length) return 0;
  return hay.indexOf(needle, start) + 1;
}
const startsWith = (s: N<string>, p: N<string>): N<boolean> => (s === null || p === null ? null : s.startsWith(p));
const endsWith = (s: N<string>, p: N<string>): N<boolean> => (s === null || p === null ? null : s.endsWith(p));
const toBase64 = (s: N<string | Buffer>): N<string> => (s === null ? null : Buffer.from(s as string).toString('base64'));
const fromBase64 = (s: N<string>): N<string> => (s === null ? null : Buffer.from(s, 'base64').toString('utf8'));

// --- numbers -------------------------------------------------------------------------------------

const iabs = (a: N<number>): N<number> => (a === null ? null : Math.abs(a) | 0);
const labs = (a: N<bigint>): N<bigint> => (a === null ? null : a < 0n ? BigInt.asIntN(64, -a) : a);
const dabs = (a: N<number>): N<number> => (a === null ? null : Math.abs(a));
const xabs = (a: N<ExactDecimal>): N<ExactDecimal> => (a === null ? null : a.abs());
const dceil = (a: N<number>): N<number> => (a === null ? null : Math.ceil(a));
const dfloor = (a: N<number>): N<number> => (a === null ? null : Math.floor(a));
const xceil = (a: N<ExactDecimal>): N<ExactDecimal> => (a === null ? null : a.withScale(0, 'CEILING'));
const xfloor = (a: N<ExactDecimal>): N<ExactDecimal> => (a === null ? null : a.withScale(0, 'FLOOR'));
/** ROUND half up, as Java's BigDecimal.setScale(n, HALF_UP); a negative n rounds to tens, hundreds, ... */
function xround(a: N<ExactDecimal>, n: N<number>): N<ExactDecimal> {
  if (a === null || n === null) return null;
  return a.withScale(n, 'HALF_UP');
}
function dround(a: N<number>, n: N<number>): N<number> {
  if (a === null || n === null) return null;
  if (!Number.isFinite(a)) return a;
  return xround(ExactDecimal.fromDouble(a), n)!.toNumber();
}
function iround(a: N<number>, n: N<number>): N<number> {
  if (a === null || n === null) return null;
  return n >= 0 ? a : Number(xround(ExactDecimal.fromInteger(a), n)!.toBigInt());
}
function lround(a: N<bigint>, n: N<number>): N<bigint> {
  if (a === null || n === null) return null;
  return n >= 0 ? a : xround(ExactDecimal.fromInteger(a), n)!.toBigInt();
}
const uuid = (): string => randomUUID();

// --- casts ---------------------------------------------------------------------------------------

function rangeCheck(v: number, min: number, max: number, type: string): number {
  if (v < min || v > max) throw new ExpressionEvaluationError('cast-out-of-range', `${v} does not fit ${type}`);
  return v;
}
function toInt(v: unknown, min = -2147483648, max = 2147483647, type = 'INT'): N<number> {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') {
    const n = Number(v.trim());
    if (!Number.isFinite(n)) throw new ExpressionEvaluationError('cast-failed', `'${v}' is no number`);
    return rangeCheck(Math.trunc(n), min, max, type);
  }
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'bigint') return rangeCheck(Number(v), min, max, type);
  if (v instanceof ExactDecimal) return rangeCheck(Number(v.toBigInt()), min, max, type);
  return rangeCheck(Math.trunc(v as number), min, max, type);
}
function toBigint(v: unknown): N<bigint> {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') {
    const d = ExactDecimal.parse(v);
    if (!d) throw new ExpressionEvaluationError('cast-failed', `'${v}' is no number`);
    return BigInt.asIntN(64, d.toBigInt());
  }
  if (typeof v === 'boolean') return v ? 1n : 0n;
  return big(v);
}
function toDouble(v: unknown): N<number> {
  if (v === null || v === undefined) return null;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'string') {
    const n = Number(v.trim());
    if (Number.isNaN(n) && v.trim() !== 'NaN') throw new ExpressionEvaluationError('cast-failed', `'${v}' is no number`);
    return n;
  }
  return num(v);
}
function toDecimal(v: unknown, precision: number, scale: number): N<ExactDecimal> {
  if (v === null || v === undefined) return null;
  const d = typeof v === 'boolean' ? ExactDecimal.fromInteger(v ? 1 : 0) : dec(typeof v === 'string' ? v.trim() : v)!;
  const r = d.withScale(scale, 'HALF_UP');
  if (r.precision() > precision && !r.isZero()) throw new ExpressionEvaluationError('cast-out-of-range', `${d.toString()} does not fit DECIMAL(${precision}, ${scale})`);
  return r;
}
function toBoolean(v: unknown): N<boolean> {
  if (v === null || v === undefined) return null;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') {
    const s = v.trim().toLowerCase();
    if (s === 'true' || s === '1' || s === 't' || s === 'yes') return true;
    if (s === 'false' || s === '0' || s === 'f' || s === 'no') return false;
    throw new ExpressionEvaluationError('cast-failed', `'${v}' is no boolean`);
  }
  if (v instanceof ExactDecimal) return !v.isZero();
  // eslint-disable-next-line eqeqeq -- 0n == 0
  return (v as number) != 0;
}
function castText<T>(v: N<string>, parse: (s: string) => T, what: string): N<T> {
  if (v === null) return null;
  const r = parse(v);
  if (r === null || (typeof r === 'number' && Number.isNaN(r))) throw new ExpressionEvaluationError('cast-failed', `'${v}' is no ${what}`);
  return r;
}
const toDate = (v: N<string>): N<string> => castText(v, (s) => (Number.isNaN(parseDateTimeMs(s)) ? null : formatDate(parseDateTimeMs(s))), 'DATE');
const toTimestampText = (v: N<string>, precision: number): N<string> =>
  castText(v, (s) => (Number.isNaN(parseDateTimeMs(s)) ? null : formatTimestamp(parseDateTimeMs(s), precision)), 'TIMESTAMP');
const toTime = (v: N<string>): N<string> => castText(v, (s) => (Number.isNaN(parseTimeMs(s)) ? null : formatTime(parseTimeMs(s), 0)), 'TIME');

// --- time ----------------------------------------------------------------------------------------

const now = (x: EvaluationContext): string => formatInstant(x.clock(), 3);
const localTimestamp = (x: EvaluationContext): string => formatTimestamp(instantToLocal(x.clock(), x.timeZone), 3);
const currentDate = (x: EvaluationContext): string => formatDate(instantToLocal(x.clock(), x.timeZone));
const localTime = (x: EvaluationContext): string => formatTime(((instantToLocal(x.clock(), x.timeZone) % 86_400_000) + 86_400_000) % 86_400_000, 0);
const unixNow = (x: EvaluationContext): bigint => BigInt(Math.floor(x.clock() / 1000));

/** Local milliseconds of a TIMESTAMP or DATE text; of a TIMESTAMP_LTZ text in the zone. */
const localMs = (v: string, ltz: boolean, x: EvaluationContext): number => (ltz ? instantToLocal(parseDateTimeMs(v), x.timeZone) : parseDateTimeMs(v));

/** A local TIMESTAMP's text as the instant it is in the zone. */
const localToLtz = (v: N<string>, x: EvaluationContext): N<string> => (v === null ? null : formatInstant(localToInstant(parseDateTimeMs(v), x.timeZone), 3));

const FORMATTERS = new Map<string, DateFormatter>();
const PARSERS = new Map<string, DateParser>();
function formatter(p: string): DateFormatter {
  let f = FORMATTERS.get(p);
  if (!f) FORMATTERS.set(p, (f = compileDateFormatter(p)));
  return f;
}
function parser(p: string): DateParser {
  let f = PARSERS.get(p);
  if (!f) PARSERS.set(p, (f = compileDateParser(p)));
  return f;
}

/** DATE_FORMAT of a DATE, TIMESTAMP or TIMESTAMP_LTZ (shown in the zone) text. */
function dateFormat(v: N<string>, pattern: N<string>, ltz: boolean, x: EvaluationContext): N<string> {
  if (v === null || pattern === null) return null;
  const local = localMs(v, ltz, x);
  if (Number.isNaN(local)) return null;
  return formatter(pattern)(local, zoneOffsetMs(x.timeZone, localToInstant(local, x.timeZone)));
}
function timeFormat(v: N<string>, pattern: N<string>): N<string> {
  if (v === null || pattern === null) return null;
  const t = parseTimeMs(v);
  return Number.isNaN(t) ? null : formatter(pattern)(t, 0);
}

const UNIT_MS: Record<string, number> = { MICROSECOND: 0.001, MILLISECOND: 1, SECOND: 1000, MINUTE: 60_000, HOUR: 3_600_000, DAY: 86_400_000, WEEK: 604_800_000 };
const UNIT_MONTHS: Record<string, number> = { MONTH: 1, QUARTER: 3, YEAR: 12 };

/** Whole units from a to b (truncated toward zero), months by the calendar as MySQL and Flink count them. */
function timestampDiff(unit: string, a: N<string>, aLtz: boolean, b: N<string>, bLtz: boolean, x: EvaluationContext): N<number> {
  if (a === null || b === null) return null;
  // Both instants compare in UTC; a local value meets an instant in the zone.
  const both = aLtz && bLtz;
  const ta = both ? parseDateTimeMs(a) : localMs(a, aLtz, x);
  const tb = both ? parseDateTimeMs(b) : localMs(b, bLtz, x);
  if (Number.isNaN(ta) || Number.isNaN(tb)) return null;
  const perMs = UNIT_MS[unit];
  if (perMs !== undefined) return Math.trunc((tb - ta) / perMs);
  const da = new Date(ta);
  const db = new Date(tb);
  let months = (db.getUTCFullYear() - da.getUTCFullYear()) * 12 + (db.getUTCMonth() - da.getUTCMonth());
  const restA = ta - Date.UTC(da.getUTCFullYear(), da.getUTCMonth(), 1);
  const restB = tb - Date.UTC(db.getUTCFullYear(), db.getUTCMonth(), 1);
  if (months > 0 && restB < restA) months--;
  else if (months < 0 && restB > restA) months++;
  return Math.trunc(months / UNIT_MONTHS[unit]!);
}

/** TIMESTAMPADD on a local timestamp's text (or an instant's), keeping its kind. */
function timestampAdd(unit: string, n: N<number>, v: N<string>, ltz: boolean): N<string> {
  if (n === null || v === null) return null;
  const t = parseDateTimeMs(v);
  if (Number.isNaN(t)) return null;
  let r: number;
  const perMs = UNIT_MS[unit];
  if (perMs !== undefined) r = t + n * perMs;
  else {
    const d = new Date(t);
    const target = d.getUTCMonth() + n * UNIT_MONTHS[unit]!;
    const y = d.getUTCFullYear() + Math.floor(target / 12);
    const mo = ((target % 12) + 12) % 12;
    const lastDay = new Date(Date.UTC(y, mo + 1, 0)).getUTCDate();
    r = Date.UTC(y, mo, Math.min(d.getUTCDate(), lastDay)) + (t - Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
  }
  return ltz ? formatInstant(r, 3) : formatTimestamp(r, 3);
}

const DEFAULT_DATE = 'yyyy-MM-dd';
const DEFAULT_TIMESTAMP = 'yyyy-MM-dd HH:mm:ss';

function parseLocal(v: string, pattern: string, x: EvaluationContext): number {
  const p = parser(pattern)(v);
  if (p === null) return NaN;
  return p.offsetMs === null ? p.localMs : instantToLocal(p.localMs - p.offsetMs, x.timeZone);
}
function toDateFn(v: N<string>, pattern: N<string>, x: EvaluationContext): N<string> {
  if (v === null || pattern === null) return null;
  const t = parseLocal(v, pattern, x);
  return Number.isNaN(t) ? null : formatDate(t);
}
function toTimestampFn(v: N<string>, pattern: N<string>, x: EvaluationContext): N<string> {
  if (v === null || pattern === null) return null;
  const t = parseLocal(v, pattern, x);
  return Number.isNaN(t) ? null : formatTimestamp(t, 3);
}
function toTimestampLtzFn(v: N<string>, pattern: N<string>, x: EvaluationContext): N<string> {
  if (v === null || pattern === null) return null;
  const p = parser(pattern)(v);
  if (p === null) return null;
  return formatInstant(p.offsetMs === null ? localToInstant(p.localMs, x.timeZone) : p.localMs - p.offsetMs, 3);
}
/** The date part of a TIMESTAMP, or of a TIMESTAMP_LTZ in UTC (as Flink CDC's toDate(Instant)). */
const datePart = (v: N<string>): N<string> => (v === null ? null : formatDate(parseDateTimeMs(v)));
function fromUnixtime(seconds: N<number | bigint>, pattern: N<string>, x: EvaluationContext): N<string> {
  if (seconds === null || pattern === null) return null;
  const utc = Number(seconds) * 1000;
  return formatter(pattern)(instantToLocal(utc, x.timeZone), zoneOffsetMs(x.timeZone, utc));
}
/** Seconds of a text in the pattern, in the zone unless the text has an offset; Long.MIN_VALUE when it does not parse, as Flink. */
function unixTimestamp(v: N<string>, pattern: N<string>, x: EvaluationContext): N<bigint> {
  if (v === null || pattern === null) return null;
  const p = parser(pattern)(v);
  if (p === null) return INT_MIN_BIG;
  const utc = p.offsetMs === null ? localToInstant(p.localMs, x.timeZone) : p.localMs - p.offsetMs;
  return BigInt(Math.floor(utc / 1000));
}
function dateAdd(v: N<string>, days: N<number>, ltz: boolean, x: EvaluationContext): N<string> {
  if (v === null || days === null) return null;
  const t = localMs(v, ltz, x);
  return Number.isNaN(t) ? null : formatDate(t + days * 86_400_000);
}
const FIELD: Record<string, (d: Date, ms: number) => number> = {
  YEAR: (d) => d.getUTCFullYear(),
  QUARTER: (d) => Math.floor(d.getUTCMonth() / 3) + 1,
  MONTH: (d) => d.getUTCMonth() + 1,
  DAY: (d) => d.getUTCDate(),
  DAYOFMONTH: (d) => d.getUTCDate(),
  DAYOFWEEK: (d) => d.getUTCDay() + 1,
  DAYOFYEAR: (d, ms) => Math.floor((ms - Date.UTC(d.getUTCFullYear(), 0, 1)) / 86_400_000) + 1,
  HOUR: (d) => d.getUTCHours(),
  MINUTE: (d) => d.getUTCMinutes(),
  SECOND: (d) => d.getUTCSeconds(),
};
function extract(unit: string, v: N<string>, ltz: boolean, x: EvaluationContext): N<bigint> {
  if (v === null) return null;
  const t = /^\d\d:/.test(v) ? parseTimeMs(v) : localMs(v, ltz, x);
  if (Number.isNaN(t)) return null;
  return BigInt(FIELD[unit]!(new Date(t), t));
}

export const RUNTIME_LIBRARY = {
  dec, bool, big, num, str, dblStr, decOut,
  iadd, isub, imul, idiv, imod, ineg, ladd, lsub, lmul, ldiv, lmod, lneg, dadd, dsub, dmul, ddiv, dmod, dneg, xadd, xsub, xmul, xdiv, xmod, xneg,
  cmp, xcmp, tcmp, timeCmp, bytesCmp, ne, not,
  upper, lower, charLength, concat2, concat, concatWs, trim, WHITESPACE, substr, regexpReplace, regexpExtract, like, likeRe, pad, replace, repeat, left, right, locate, startsWith, endsWith, toBase64, fromBase64,
  iabs, labs, dabs, xabs, dceil, dfloor, xceil, xfloor, xround, dround, iround, lround, uuid,
  toInt, toBigint, toDouble, toDecimal, toBoolean, toDate, toTimestampText, toTime,
  now, localTimestamp, currentDate, localTime, unixNow, dateFormat, timeFormat, timestampDiff, timestampAdd, toDateFn, toTimestampFn, toTimestampLtzFn, datePart, localToLtz, fromUnixtime, unixTimestamp, dateAdd, extract,
  DEFAULT_DATE, DEFAULT_TIMESTAMP,
};

export type RuntimeLibrary = typeof RUNTIME_LIBRARY;
