import type { RowImage } from './pg-change-record.ts';
import type { PgValueParser } from './pg-value-codec.ts';

/** A column of a COPY's output: its name in the row image and the parser of its text. */
export interface CopyColumn {
  readonly name: string;
  readonly parse: PgValueParser;
}

/** A row of `COPY … TO STDOUT` (text format) with a different number of fields than columns. */
export class CopyRowShapeError extends Error {
  readonly expected: number;
  readonly found: number;
  constructor(expected: number, found: number, row: string) {
    super(`COPY output row has ${found} fields, expected ${expected}: ${row.slice(0, 200)}`);
    this.name = 'CopyRowShapeError';
    this.expected = expected;
    this.found = found;
  }
}

const ESCAPES: Readonly<Record<string, string>> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v' };

/**
 * One field of COPY's text output with its backslash escapes undone. COPY TO writes backslash as
 * `\\`, the delimiter and the control characters \b \f \n \r \t \v as escapes, anything else as is.
 */
export function unescapeCopyField(s: string): string {
  return s.replace(/\\(.)/gs, (_, c: string) => ESCAPES[c] ?? c);
}

/**
 * A decoder of one row of COPY's text output (fields tab-separated, `\N` for NULL) into the row
 * image a SELECT of the same columns gives: each field unescaped and parsed as the server's text
 * output of its type, the same parsers the replication stream uses.
 */
export function copyRowDecoder(columns: readonly CopyColumn[]): (row: string) => RowImage {
  const n = columns.length;
  const names = columns.map((c) => c.name);
  const parsers = columns.map((c) => c.parse);
  return (row) => {
    const out: Record<string, unknown> = {};
    let start = 0;
    for (let i = 0; i < n; i++) {
      let end = row.indexOf('\t', start);
      if (end === -1) end = row.length;
      if (i === n - 1 ? end !== row.length : end === row.length) throw new CopyRowShapeError(n, row.split('\t').length, row);
      if (end - start === 2 && row.charCodeAt(start) === 92 && row.charCodeAt(start + 1) === 78) {
        out[names[i]!] = null;
      } else {
        const raw = row.slice(start, end);
        out[names[i]!] = parsers[i]!(raw.includes('\\') ? unescapeCopyField(raw) : raw);
      }
      start = end + 1;
    }
    return out;
  };
}
