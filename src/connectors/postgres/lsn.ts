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

/** WAL page headers (MAXALIGNed): the long one opens each segment, the short one every other page. */
const SHORT_PAGE_HEADER = 24n;
const LONG_PAGE_HEADER = 40n;

/**
 * A chunk's watermark from pg_current_wal_insert_lsn(): the position that every transaction whose
 * commit record starts before the insert position is at or before, and every later one after.
 *
 * The core counts a change at or before HIGH as in the chunk; a backfill reads while its position
 * (a transaction's commit LSN at its Begin, the server's WAL end between transactions) is below
 * HIGH. The insert position itself would let a commit record that starts exactly there (a
 * transaction committing just after the HIGH query) fall between the two: not read by the
 * backfill, yet dropped by the log phase as held by the chunk. One byte less puts it after HIGH
 * for both (record starts are 8-byte aligned). And the insert position right after a page header
 * is where the last record ended plus the header, which the server's WAL end (the end of the last
 * record sent) reaches only with the next record: the header is taken off first.
 */
export function watermarkFromInsertLsn(insert: Lsn, walBlockSize: number, walSegmentSize: number): Lsn {
  let end = insert;
  if (end % BigInt(walSegmentSize) === LONG_PAGE_HEADER) end -= LONG_PAGE_HEADER;
  else if (end % BigInt(walBlockSize) === SHORT_PAGE_HEADER) end -= SHORT_PAGE_HEADER;
  return end - 1n;
}
