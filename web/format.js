// @ts-check
// How numbers, sizes, durations and times are written on the dashboard.

/** @param {number | null | undefined} n */
export function count(n) {
  return n === null || n === undefined || Number.isNaN(n) ? '–' : Math.round(n).toLocaleString('en-US');
}

/**
 * A setting's value as written: the engine's "no limit" (Number.MAX_SAFE_INTEGER, as the CLI's
 * config table writes it) is "unlimited".
 * @param {unknown} v
 */
export function settingValue(v) {
  return v === Number.MAX_SAFE_INTEGER || v === String(Number.MAX_SAFE_INTEGER) ? 'unlimited' : typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v);
}

/** @param {number | null | undefined} n bytes */
export function bytes(n) {
  if (n === null || n === undefined || Number.isNaN(n)) return '–';
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[u]}`;
}

/** @param {number | null | undefined} ms */
export function duration(ms) {
  if (ms === null || ms === undefined || Number.isNaN(ms) || ms < 0) return '–';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 10_000) return `${(ms / 1000).toFixed(2)} s`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.floor(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  return h > 0 ? `${h}h ${String(m).padStart(2, '0')}m` : `${m}m ${String(sec).padStart(2, '0')}s`;
}

/** @param {number} n */
const two = (n) => String(n).padStart(2, '0');

/** Local time of day, `12:04:59`. @param {number | null | undefined} ts */
export function time(ts) {
  if (!ts || ts < 0) return '–';
  const d = new Date(ts);
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}

/** Local date and time, `2025-05-01 12:04:59`. @param {number | null | undefined} ts */
export function dateTime(ts) {
  if (!ts || ts < 0) return '–';
  const d = new Date(ts);
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${time(ts)}`;
}

/** A share 0..1 as a percentage. @param {number | null | undefined} r */
export function percent(r) {
  return r === null || r === undefined || Number.isNaN(r) ? '–' : `${Math.round(r * 100)}%`;
}

/** A rate per second. @param {number | null | undefined} r */
export function rate(r) {
  return r === null || r === undefined || Number.isNaN(r) ? '–' : `${count(r)}/s`;
}

/** Shortens a text to `max` characters with an ellipsis. @param {string} text @param {number} max */
export function clip(text, max) {
  return text.length <= max ? text : `${text.slice(0, Math.max(1, max - 1))}…`;
}
