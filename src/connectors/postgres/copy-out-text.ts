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
 * output of its type, the same parsers the replication stream uses. The row is `text[pos, eol)`
 * of a string of many rows (copy-out.ts makes one of a run of messages).
 *
 * The fields are slices of that string: V8 keeps a slice of 13 characters or more as a view of
 * it, so a value held long keeps its batch of rows (tens of KB) alive, as a value of the row at a
 * time decoded before kept its row.
 */
export function copyTextRowDecoder(columns: readonly CopyColumn[]): (text: string, pos: number, eol: number) => RowImage {
  const n = columns.length;
  const parsers = columns.map((c) => c.parse);
  const makeRow = rowMaker(columns.map((c) => c.name));
  const values: unknown[] = new Array<unknown>(n).fill(null);
  // The first backslash and tab at or after the `…From` positions in `last`: looked for again only
  // once passed (most fields have no backslash, and the last field of a row no tab), so rows
  // decoded in order cost one search per backslash and tab, not per field.
  let last = '';
  let backslashFrom = 0;
  let backslash = -1;
  let tabFrom = 0;
  let tab = -1;
  return (text, pos, eol) => {
    if (text !== last || pos < backslashFrom || pos < tabFrom) {
      last = text;
      backslash = tab = -1;
    }
    let start = pos;
    for (let i = 0; i < n; i++) {
      if (tab < start) {
        tabFrom = start;
        tab = text.indexOf('\t', start);
        if (tab === -1) tab = text.length;
      }
      const lastField = i === n - 1;
      if (lastField ? tab < eol : tab > eol) throw rowShapeError(n, text.slice(pos, eol));
      const end = lastField ? eol : tab;
      if (backslash < start) {
        backslashFrom = start;
        backslash = text.indexOf('\\', start);
        if (backslash === -1) backslash = text.length;
      }
      if (backslash < end) {
        values[i] = backslash === start && end - start === 2 && text.charCodeAt(start + 1) === 78 ? null : parsers[i]!(unescapeCopyField(text.slice(start, end)));
        backslash = -1;
      } else {
        values[i] = parsers[i]!(text.slice(start, end));
      }
      start = end + 1;
    }
    return makeRow(values);
  };
}

/**
 * Calls `onRow` with where each row of `text` begins and ends (before its newline): many rows in
 * one string, where those that begin a CopyData message are preceded by `gap` NUL characters
 * (where its header was).
 */
export function forEachCopyRow(text: string, gap: number, onRow: (pos: number, eol: number) => void): void {
  const length = text.length;
  for (let at = 0; at < length; ) {
    // Text output has no NUL characters: NULs before a row are where a message began.
    const pos = gap > 0 && text.charCodeAt(at) === 0 ? at + gap : at;
    let eol = text.indexOf('\n', pos);
    if (eol === -1) eol = length;
    onRow(pos, eol);
    at = eol + 1;
  }
}

/** Decodes the rows of a string of many (forEachCopyRow's) onto `out`. */
export function copyRowsDecoder(columns: readonly CopyColumn[]): (text: string, gap: number, out: RowImage[]) => void {
  const decode = copyTextRowDecoder(columns);
  return (text, gap, out) => forEachCopyRow(text, gap, (pos, eol) => out.push(decode(text, pos, eol)));
}

/**
 * A function that makes a row image of `values` with the columns' names as keys, compiled for the
 * columns: an object literal of fixed keys is made several times faster than one filled by keys
 * that vary (about a fifth of the decoding of a row). Names are JSON string literals; `__proto__`
 * is a computed key, which makes an own property where a literal one would set the prototype.
 */
function rowMaker(names: readonly string[]): (values: readonly unknown[]) => RowImage {
  const entries = names.map((name, i) => `${name === '__proto__' ? '["__proto__"]' : JSON.stringify(name)}: v[${i}]`);
  return new Function('v', `return { ${entries.join(', ')} };`) as (values: readonly unknown[]) => RowImage;
}

function rowShapeError(expected: number, row: string): CopyRowShapeError {
  return new CopyRowShapeError(expected, row.split('\t').length, row);
}

/** copyRowsDecoder for one row's text, without its newline. */
export function copyRowDecoder(columns: readonly CopyColumn[]): (row: string) => RowImage {
  const decode = copyRowsDecoder(columns);
  return (row) => {
    const out: RowImage[] = [];
    decode(`${row}\n`, 0, out);
    return out[0]!;
  };
}
