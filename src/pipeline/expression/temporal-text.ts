/**
 * Temporal values are text in weir's CDC records: DATE 'YYYY-MM-DD', TIME 'HH:MM:SS[.f]',
 * TIMESTAMP 'YYYY-MM-DD HH:MM:SS[.f]' (local) and TIMESTAMP_LTZ 'YYYY-MM-DDTHH:MM:SS[.f]Z' (an
 * instant). Functions compute with milliseconds on a UTC clock ("local milliseconds" for the local
 * types); these convert both ways.
 */
const DATE_TIME = /^(-?\d{4,})-(\d\d)-(\d\d)(?:[ T](\d\d):(\d\d)(?::(\d\d)(?:\.(\d{1,9}))?)?)?(Z|[+-]\d\d(?::?\d\d)?)?$/;
const TIME = /^(-?\d{1,3}):(\d\d)(?::(\d\d)(?:\.(\d{1,9}))?)?$/;

/** Milliseconds of a date or date-time text on a UTC clock; an offset in the text is applied. NaN when it is none. */
export function parseDateTimeMs(text: string): number {
  const m = DATE_TIME.exec(text.trim());
  if (!m) return NaN;
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0), Number((m[7] ?? '0').padEnd(3, '0').slice(0, 3)));
  const y = new Date(ms);
  if (y.getUTCDate() !== Number(m[3]) || y.getUTCMonth() !== Number(m[2]) - 1) return NaN; // 2024-02-30
  const zone = m[8];
  if (!zone || zone === 'Z') return ms;
  const z = /^([+-])(\d\d):?(\d\d)?$/.exec(zone)!;
  return ms - (z[1] === '-' ? -1 : 1) * (Number(z[2]) * 60 + Number(z[3] ?? 0)) * 60_000;
}

/** Milliseconds since midnight of a TIME text; NaN when it is none. */
export function parseTimeMs(text: string): number {
  const m = TIME.exec(text.trim());
  if (!m) return NaN;
  const sign = m[1]!.startsWith('-') ? -1 : 1;
  return sign * ((Math.abs(Number(m[1])) * 3600 + Number(m[2]) * 60 + Number(m[3] ?? 0)) * 1000 + Number((m[4] ?? '0').padEnd(3, '0').slice(0, 3)));
}

const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

function yearText(y: number): string {
  return y < 0 ? `-${pad(-y, 4)}` : pad(y, 4);
}

export function formatDate(ms: number): string {
  const d = new Date(ms);
  return `${yearText(d.getUTCFullYear())}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
}

function fraction(ms: number, precision: number): string {
  if (precision <= 0) return '';
  const millis = ((ms % 1000) + 1000) % 1000;
  return `.${pad(millis, 3).padEnd(precision, '0').slice(0, precision)}`;
}

export function formatTime(msOfDay: number, precision = 0): string {
  const s = Math.floor(msOfDay / 1000);
  return `${pad(Math.floor(s / 3600))}:${pad(Math.floor(s / 60) % 60)}:${pad(s % 60)}${fraction(msOfDay, precision)}`;
}

/** A local TIMESTAMP's text ('2024-01-31 13:45:00.123' at precision 3). */
export function formatTimestamp(localMs: number, precision = 3): string {
  const d = new Date(localMs);
  return `${formatDate(localMs)} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}${fraction(localMs, precision)}`;
}

/** A TIMESTAMP_LTZ's text, as the CDC sources give instants ('2024-01-31T13:45:00.123Z'). */
export function formatInstant(utcMs: number, precision = 3): string {
  return `${formatTimestamp(utcMs, precision).replace(' ', 'T')}Z`;
}
