/**
 * Offsets of IANA time zones (the pipeline's `local-time-zone`) through Intl, cached per zone:
 * LOCALTIMESTAMP, DATE_FORMAT of an instant and TO_TIMESTAMP_LTZ need them per row.
 */
const FORMATTERS = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let f = FORMATTERS.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
    FORMATTERS.set(zone, f);
  }
  return f;
}

const FIXED_OFFSET = /^(?:UTC|GMT)?([+-])(\d{1,2})(?::?(\d\d))?$/;

/** Whether a zone id is known (an IANA name, 'UTC', or an offset '+08:00'). */
export function isKnownTimeZone(zone: string): boolean {
  if (FIXED_OFFSET.test(zone)) return true;
  try {
    formatter(zone);
    return true;
  } catch {
    return false;
  }
}

/** The zone's offset from UTC in milliseconds at an instant. */
export function zoneOffsetMs(zone: string, utcMs: number): number {
  const fixed = FIXED_OFFSET.exec(zone);
  if (fixed) return (fixed[1] === '-' ? -1 : 1) * (Number(fixed[2]) * 60 + Number(fixed[3] ?? 0)) * 60_000;
  if (zone === 'UTC' || zone === 'Z') return 0;
  const whole = Math.floor(utcMs / 1000) * 1000;
  const p: Record<string, number> = {};
  for (const part of formatter(zone).formatToParts(whole)) if (part.type !== 'literal') p[part.type] = Number(part.value);
  const asUtc = Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!);
  return asUtc - whole;
}

/** Local wall time (as milliseconds of a UTC clock) → the instant; in a gap or overlap, the earlier offset as java.time does. */
export function localToInstant(localMs: number, zone: string): number {
  const first = localMs - zoneOffsetMs(zone, localMs);
  const second = localMs - zoneOffsetMs(zone, first);
  return Math.min(first, second);
}

export function instantToLocal(utcMs: number, zone: string): number {
  return utcMs + zoneOffsetMs(zone, utcMs);
}
