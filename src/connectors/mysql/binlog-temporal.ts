import type { BinaryReader } from './binary-reader.ts';

/*
 * Dates and times in a row image, formatted as the server prints them in a SELECT (the text
 * protocol), so both paths give the same string: DATE 'YYYY-MM-DD', DATETIME
 * 'YYYY-MM-DD HH:MM:SS[.f]', TIME '[-]HH:MM:SS[.f]' with exactly fsp fractional digits.
 * TIMESTAMP is different on purpose: the binlog holds epoch seconds, given as ISO UTC.
 */

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

function fraction(micros: number, fsp: number): string {
  return fsp > 0 ? `.${pad(micros, 6).slice(0, fsp)}` : '';
}

/** The fractional part that follows DATETIME2/TIMESTAMP2: ceil(fsp/2) big-endian bytes. */
function readFraction(r: BinaryReader, fsp: number): number {
  const bytes = Math.ceil(fsp / 2);
  const v = r.uintBE(bytes);
  return bytes === 1 ? v * 10_000 : bytes === 2 ? v * 100 : v;
}

function formatDate(year: number, month: number, day: number): string {
  return `${pad(year, 4)}-${pad(month)}-${pad(day)}`;
}

/** DATE (and NEWDATE): 3 bytes little-endian, day:5 month:4 year:15. */
export function readDate(r: BinaryReader): string {
  const v = r.uintLE(3);
  return formatDate(v >>> 9, (v >>> 5) & 15, v & 31);
}

/** DATETIME2: 40 bits big-endian offset by 2^39 (sign), year*13+month:17 day:5 hour:5 minute:6 second:6. */
export function readDatetime2(r: BinaryReader, fsp: number): string {
  const packed = r.uintBE(5) - 0x8000000000;
  const micros = readFraction(r, fsp);
  const ymd = Math.floor(packed / 2 ** 17);
  const hms = packed % 2 ** 17;
  const ym = Math.floor(ymd / 32);
  const date = formatDate(Math.floor(ym / 13), ym % 13, ymd % 32);
  return `${date} ${pad(Math.floor(hms / 4096))}:${pad(Math.floor(hms / 64) % 64)}:${pad(hms % 64)}${fraction(micros, fsp)}`;
}

/** TIMESTAMP2: epoch seconds, 4 bytes big-endian, then the fraction; 0 is the zero timestamp. */
export function readTimestamp2(r: BinaryReader, fsp: number): string {
  const seconds = r.uintBE(4);
  return formatTimestamp(seconds, readFraction(r, fsp), fsp);
}

export function formatTimestamp(seconds: number, micros: number, fsp: number): string {
  if (seconds === 0 && micros === 0) return `0000-00-00 00:00:00${fraction(0, fsp)}`;
  const d = new Date(seconds * 1000);
  const date = formatDate(d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate());
  return `${date}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}${fraction(micros, fsp)}Z`;
}

/**
 * TIME2: 24 bits big-endian offset by 2^23, hour:10 minute:6 second:6, then the fraction. A
 * negative time with a fraction is stored as (integer part + 1, fraction - 1) so that the bytes
 * sort; undo that to get the magnitude (my_time_packed_from_binary).
 */
export function readTime2(r: BinaryReader, fsp: number): string {
  let packed: number; // (integer part * 2^24 + microseconds), signed
  if (fsp >= 5) {
    packed = r.uintBE(6) - 0x800000000000;
  } else {
    let int = r.uintBE(3) - 0x800000;
    const bytes = Math.ceil(fsp / 2);
    let frac = r.uintBE(bytes);
    if (int < 0 && frac !== 0) {
      int++;
      frac -= 2 ** (8 * bytes);
    }
    packed = int * 2 ** 24 + frac * (bytes === 1 ? 10_000 : bytes === 2 ? 100 : 0);
  }
  const negative = packed < 0;
  const abs = Math.abs(packed);
  const hms = Math.floor(abs / 2 ** 24);
  const micros = abs % 2 ** 24;
  const hours = Math.floor(hms / 4096) % 1024;
  return `${negative ? '-' : ''}${pad(hours)}:${pad(Math.floor(hms / 64) % 64)}:${pad(hms % 64)}${fraction(micros, fsp)}`;
}

/** Pre-5.6 DATETIME: 8 bytes little-endian, the decimal number YYYYMMDDhhmmss. */
export function readOldDatetime(r: BinaryReader): string {
  const v = r.u64();
  const d = v / 1_000_000n;
  const t = v % 1_000_000n;
  const n = (x: bigint, div: bigint, mod: bigint) => Number((x / div) % mod);
  return `${formatDate(Number(d / 10_000n), n(d, 100n, 100n), n(d, 1n, 100n))} ${pad(n(t, 10_000n, 100n))}:${pad(n(t, 100n, 100n))}:${pad(n(t, 1n, 100n))}`;
}

/** Pre-5.6 TIMESTAMP: epoch seconds, 4 bytes little-endian. */
export function readOldTimestamp(r: BinaryReader): string {
  return formatTimestamp(r.u32(), 0, 0);
}

/** Pre-5.6 TIME: 3 bytes little-endian signed, the decimal number (-)hhhmmss. */
export function readOldTime(r: BinaryReader): string {
  const v = r.intLE(3);
  const abs = Math.abs(v);
  return `${v < 0 ? '-' : ''}${pad(Math.floor(abs / 10_000))}:${pad(Math.floor(abs / 100) % 100)}:${pad(abs % 100)}`;
}
