/** Rows in COPY's text format: values tab-separated (see copyField), each row ending in a newline. */
export function copyText(rows: ReadonlyArray<readonly unknown[]>): string {
  let out = '';
  for (const row of rows) {
    for (let i = 0; i < row.length; i++) {
      if (i > 0) out += '\t';
      out += copyField(row[i]);
    }
    out += '\n';
  }
  return out;
}

/**
 * One value in COPY's text format (a row is its values tab-separated, ending in a newline): `\N`
 * for NULL, backslash escapes for backslash, tab, newline and carriage return; dates as ISO
 * timestamps, objects as JSON, bytes as `\x` hex.
 */
export function copyField(v: unknown): string {
  if (v === null || v === undefined) return '\\N';
  switch (typeof v) {
    case 'number':
      return Number.isFinite(v) ? String(v) : Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity';
    case 'bigint':
      return String(v);
    case 'boolean':
      return v ? 't' : 'f';
    case 'string':
      return escape(v);
    default:
      if (v instanceof Date) return isoTimestamp(v);
      if (v instanceof Uint8Array) return `\\\\x${Buffer.from(v).toString('hex')}`;
      return escape(JSON.stringify(v));
  }
}

function escape(s: string): string {
  return /[\\\t\n\r]/.test(s) ? s.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r') : s;
}

const DAY_MS = 86_400_000;
const TWO_DIGITS = Array.from({ length: 60 }, (_, i) => String(i).padStart(2, '0'));
const THREE_DIGITS = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));
/** The date part of the last day formatted: a stream's timestamps mostly fall on the same day as the one before. */
let cachedDay = Number.NaN;
let cachedDate = '';

/**
 * What Date#toISOString returns, at a fraction of its cost (the profile of a COPY of timestamped
 * rows is dominated by it): the date part is formatted once per day, the time of day by table.
 */
export function isoTimestamp(d: Date): string {
  const ms = d.getTime();
  const day = Math.floor(ms / DAY_MS);
  if (day !== cachedDay) {
    cachedDate = d.toISOString().slice(0, -13); // throws a RangeError for an invalid date, as toISOString does
    cachedDay = day;
  }
  let rest = ms - day * DAY_MS;
  const h = Math.floor(rest / 3_600_000);
  rest -= h * 3_600_000;
  const m = Math.floor(rest / 60_000);
  rest -= m * 60_000;
  const s = Math.floor(rest / 1000);
  return `${cachedDate}${TWO_DIGITS[h]}:${TWO_DIGITS[m]}:${TWO_DIGITS[s]}.${THREE_DIGITS[rest - s * 1000]}Z`;
}
