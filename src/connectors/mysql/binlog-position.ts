/**
 * A point in a server's binary log: the file and byte offset, and the GTID state of everything
 * before it when known (MariaDB: `0-1-57[,1-2-9]`; MySQL: an executed GTID set `uuid:1-57`).
 */
export interface BinlogPosition {
  readonly file: string;
  readonly pos: number;
  readonly gtid?: string;
}

/** The two positions name files of different binary logs, so they cannot be ordered. */
export class BinlogPositionError extends Error {
  readonly a: string;
  readonly b: string;
  constructor(a: string, b: string, problem: string) {
    super(`cannot compare binlog positions ${a} and ${b}: ${problem}`);
    this.name = 'BinlogPositionError';
    this.a = a;
    this.b = b;
  }
}

const FILE_NAME = /^(.*)\.(\d+)$/;

function splitFileName(file: string, a: string, b: string): { base: string; index: number } {
  const m = FILE_NAME.exec(file);
  if (!m) throw new BinlogPositionError(a, b, `'${file}' is not a binlog file name (base.NNNNNN)`);
  return { base: m[1]!, index: Number(m[2]) };
}

/** Orders by the file's numeric suffix, then the offset; files of different base names are an error. */
export function compareBinlogPositions(a: BinlogPosition, b: BinlogPosition): number {
  const fa = formatBinlogPosition(a);
  const fb = formatBinlogPosition(b);
  const x = splitFileName(a.file, fa, fb);
  const y = splitFileName(b.file, fa, fb);
  if (x.base !== y.base) throw new BinlogPositionError(fa, fb, `different binlog base names '${x.base}' and '${y.base}'`);
  return Math.sign(x.index - y.index) || Math.sign(a.pos - b.pos);
}

/** `binlog.000003:1234`, with ` gtid 0-1-57` when the GTID state is known. */
export function formatBinlogPosition(p: BinlogPosition): string {
  return `${p.file}:${p.pos}${p.gtid ? ` gtid ${p.gtid}` : ''}`;
}

/** Where a binlog reader starts: a file and offset, or after a GTID state (all flavors' syntax). */
export type BinlogStart = { readonly kind: 'file'; readonly file: string; readonly pos: number } | { readonly kind: 'gtid'; readonly gtid: string };
