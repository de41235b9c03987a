/**
 * A PostgreSQL WAL position (pg_lsn): a 64-bit byte offset, printed by the server as two hex
 * halves ('16/B374D848'). Kept as a bigint so positions compare and subtract exactly.
 */
export type Lsn = bigint;

export const INVALID_LSN: Lsn = 0n;

const LSN_TEXT = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/;

/** An LSN written in the server's notation is not one. */
export class LsnFormatError extends Error {
  readonly text: string;
  constructor(text: string) {
    super(`'${text}' is not a PostgreSQL LSN: expected two hex numbers of at most 8 digits separated by '/', e.g. '16/B374D848'`);
    this.name = 'LsnFormatError';
    this.text = text;
  }
}

export function parseLsn(text: string): Lsn {
  const m = LSN_TEXT.exec(text);
  if (!m) throw new LsnFormatError(text);
  return (BigInt(`0x${m[1]}`) << 32n) | BigInt(`0x${m[2]}`);
}

export function formatLsn(lsn: Lsn): string {
  return `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffffffffn).toString(16).toUpperCase()}`;
}

export function compareLsn(a: Lsn, b: Lsn): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function maxLsn(a: Lsn, b: Lsn): Lsn {
  return a > b ? a : b;
}
