import type { ChunkRows } from '../cdc/cdc-dialect.ts';
import { copyTextRowDecoder, forEachCopyRow, type CopyColumn } from './copy-out-text.ts';
import type { RowImage } from './pg-change-record.ts';

/**
 * A COPY's rows kept as the text they came in (the strings copy-out.ts makes of runs of
 * messages), each decoded when asked for. A chunk's rows wait for its HIGH watermark before they
 * are emitted: decoded on arrival, its row images and their values outlived young-generation
 * collections and were copied and promoted (GC was the largest cost of the snapshot's reader,
 * `npm run bench -- cdc --dialect postgres` profiled); decoded as they are emitted, they die
 * young, and only the text waits.
 */
export class CopyRowList implements ChunkRows {
  readonly #decode: (text: string, pos: number, eol: number) => RowImage;
  readonly #texts: string[] = [];
  /** Per row: its text's index, where it begins, where its newline is. */
  #rows = new Int32Array(3 * 1024);
  #length = 0;

  constructor(columns: readonly CopyColumn[]) {
    this.#decode = copyTextRowDecoder(columns);
  }

  get length(): number {
    return this.#length;
  }

  /** Takes the rows of a string of many (forEachCopyRow's). */
  add(text: string, gap: number): void {
    const t = this.#texts.push(text) - 1;
    forEachCopyRow(text, gap, (pos, eol) => {
      let rows = this.#rows;
      const at = 3 * this.#length++;
      if (at + 3 > rows.length) {
        rows = new Int32Array(rows.length * 2);
        rows.set(this.#rows);
        this.#rows = rows;
      }
      rows[at] = t;
      rows[at + 1] = pos;
      rows[at + 2] = eol;
    });
  }

  /** Row `index` decoded (a new image each call). */
  at(index: number): RowImage | undefined {
    if (index < 0 || index >= this.#length) return undefined;
    const rows = this.#rows;
    const at = 3 * index;
    return this.#decode(this.#texts[rows[at]!]!, rows[at + 1]!, rows[at + 2]!);
  }
}
