import { isUtf8 } from 'node:buffer';
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { InputStatus, Source, SourceOutput, SourceReader, SourceReaderContext, SplitEnumeratorContext } from '../../api/source.ts';
import type { Logger } from '../../log/logger.ts';
import { InvalidUtf8Error } from './invalid-utf8-error.ts';

/**
 * A byte range of a text file. The split owns the lines that start inside [start, end); `offset`
 * is the byte offset of its next line, which is the position a checkpoint records.
 */
export interface TextFileSplit {
  readonly path: string;
  readonly start: number;
  readonly end: number;
  readonly offset: number;
}

export interface TextFileSourceOptions {
  /** Smallest split; a file smaller than this is read by one reader. */
  readonly minSplitBytes?: number;
  readonly linesPerPoll?: number;
  /**
   * A line that is not valid UTF-8: 'replace' (the default) reads it with U+FFFD for the bad bytes,
   * counts it (the reader's `invalid_utf8_lines`) and logs the first one of each split; 'fail'
   * fails the job with an InvalidUtf8Error naming the file and the line's byte offset.
   */
  readonly invalidUtf8?: 'replace' | 'fail';
}

/** Reads text files line by line (UTF-8, `\n` or `\r\n`), split into byte ranges read in parallel. */
export class TextFileSource implements Source<string, TextFileSplit> {
  readonly boundedness = 'bounded' as const;
  readonly paths: readonly string[];
  readonly #o: TextFileSourceOptions;

  constructor(paths: string | readonly string[], options: TextFileSourceOptions = {}) {
    this.paths = (typeof paths === 'string' ? [paths] : paths).map((p) => resolve(p));
    this.#o = options;
  }

  createSplits(ctx: SplitEnumeratorContext): TextFileSplit[] {
    const min = this.#o.minSplitBytes ?? 64 * 1024;
    const splits: TextFileSplit[] = [];
    for (const path of this.paths) {
      let size: number;
      try {
        size = statSync(path).size;
      } catch (e) {
        throw new Error(`text file source: cannot read ${path}: ${(e as Error).message}`);
      }
      const pieces = Math.max(1, Math.min(ctx.parallelism, Math.floor(size / min)));
      for (let i = 0; i < pieces; i++) {
        const start = Math.floor((i * size) / pieces);
        const end = Math.floor(((i + 1) * size) / pieces);
        splits.push({ path, start, end, offset: start });
      }
    }
    return splits;
  }

  createReader(ctx: SourceReaderContext): SourceReader<string, TextFileSplit> {
    return new TextFileReader(this.#o.linesPerPoll ?? 256, this.#o.invalidUtf8 ?? 'replace', ctx.log);
  }
}

const CHUNK = 256 * 1024;

/** A split's id for its watermarks: the file and where its byte range starts. */
const splitId = (split: TextFileSplit): string => `${split.path}:${split.start}`;

interface OpenSplit {
  readonly split: TextFileSplit;
  readonly fd: number;
  /** Byte offset of the next line. */
  offset: number;
  buf: Buffer;
  /** File offset of buf[0]. */
  bufStart: number;
  bufLen: number;
  /** File offset below which buf's lines are known to be valid UTF-8 (checked once per refill). */
  validUntil: number;
  /** Whether this split's first invalid line was logged. */
  warned: boolean;
  /** The split's own output (its watermarks), made from `outputOf`, the output pollNext was given. */
  output?: SourceOutput<string>;
  outputOf?: SourceOutput<string>;
}
const NL = 0x0a;

class TextFileReader implements SourceReader<string, TextFileSplit> {
  readonly #queue: TextFileSplit[] = [];
  readonly #linesPerPoll: number;
  readonly #invalidUtf8: 'replace' | 'fail';
  readonly #log: Logger;
  #noMore = false;
  #current: OpenSplit | undefined;
  #invalidLines = 0;

  constructor(linesPerPoll: number, invalidUtf8: 'replace' | 'fail', log: Logger) {
    this.#linesPerPoll = linesPerPoll;
    this.#invalidUtf8 = invalidUtf8;
    this.#log = log;
  }

  addSplits(splits: TextFileSplit[]): void {
    this.#queue.push(...splits);
  }

  notifyNoMoreSplits(): void {
    this.#noMore = true;
  }

  pollNext(output: SourceOutput<string>): InputStatus {
    for (let emitted = 0; emitted < this.#linesPerPoll; ) {
      const cur = this.#current ?? this.#open();
      if (!cur) return this.#noMore ? 'end' : 'nothing';
      if (cur.offset >= cur.split.end) {
        this.#finishCurrent(output);
        continue;
      }
      const line = this.#readLine(cur);
      if (line === undefined) {
        this.#finishCurrent(output);
        continue;
      }
      // Each split (a byte range of a file) has watermarks of its own. The output may be another
      // object at each poll (a wrapper's), so the split's is kept only for the same one.
      if (cur.outputOf !== output) {
        cur.output = output.createOutputForSplit?.(splitId(cur.split)) ?? output;
        cur.outputOf = output;
      }
      cur.output!.collect(line);
      emitted++;
    }
    return 'more';
  }

  /** The next line at cur.offset, or undefined at the end of the file. */
  #readLine(cur: OpenSplit): string | undefined {
    for (;;) {
      const rel = cur.offset - cur.bufStart;
      const nl = rel < cur.bufLen ? cur.buf.indexOf(NL, rel) : -1;
      if (nl !== -1 && nl < cur.bufLen) {
        let endByte = nl;
        if (endByte > rel && cur.buf[endByte - 1] === 0x0d) endByte--;
        const line = this.#decode(cur, rel, endByte);
        cur.offset = cur.bufStart + nl + 1;
        return line;
      }
      // Refill from the line start: keep the partial line, grow the buffer for very long lines.
      const keep = cur.bufLen - rel;
      const size = Math.max(CHUNK, keep * 2);
      const next = Buffer.allocUnsafe(size);
      cur.buf.copy(next, 0, rel, cur.bufLen);
      const read = readSync(cur.fd, next, keep, size - keep, cur.offset + keep);
      cur.buf = next;
      cur.bufStart = cur.offset;
      cur.bufLen = keep + read;
      cur.validUntil = validLinesEnd(cur);
      if (read === 0) {
        if (keep === 0) return undefined;
        // The last line of a file without a final newline.
        let endByte = keep;
        if (cur.buf[endByte - 1] === 0x0d) endByte--;
        const line = this.#decode(cur, 0, endByte);
        cur.offset += keep;
        return line;
      }
    }
  }

  /** buf[from, to) as text; a line that is not valid UTF-8 is counted, and replaced or refused. */
  #decode(cur: OpenSplit, from: number, to: number): string {
    // A real U+FFFD in the file is valid UTF-8: only isUtf8 tells the two apart.
    if (cur.bufStart + to > cur.validUntil && !isUtf8(cur.buf.subarray(from, to))) this.#invalidLine(cur, cur.bufStart + from);
    return cur.buf.toString('utf8', from, to);
  }

  #invalidLine(cur: OpenSplit, offset: number): void {
    const path = cur.split.path;
    if (this.#invalidUtf8 === 'fail') throw new InvalidUtf8Error(path, offset);
    this.#invalidLines++;
    if (cur.warned) return;
    cur.warned = true;
    this.#log.warn(
      `text file source: ${path}: the line at byte ${offset} is not valid UTF-8; it is read with U+FFFD for the bad bytes. ` +
        `Later such lines of this split [${cur.split.start}, ${cur.split.end}) are counted (invalid_utf8_lines), not logged; invalidUtf8: 'fail' fails the job instead`,
      { file: path, offset },
    );
  }

  #open(): OpenSplit | undefined {
    const split = this.#queue[0];
    if (!split) return undefined;
    let fd: number;
    try {
      fd = openSync(split.path, 'r');
    } catch (e) {
      throw new Error(`text file source: cannot open ${split.path}: ${(e as Error).message}`);
    }
    let offset = split.offset;
    if (offset === split.start && split.start > 0) {
      // Not at a line start unless the byte before is a newline: that line belongs to the previous split.
      const one = Buffer.alloc(1);
      readSync(fd, one, 0, 1, split.start - 1);
      if (one[0] !== NL) offset = this.#skipLine(fd, split.start);
    }
    this.#current = { split, fd, offset, buf: Buffer.alloc(0), bufStart: offset, bufLen: 0, validUntil: offset, warned: false };
    return this.#current;
  }

  #skipLine(fd: number, from: number): number {
    const buf = Buffer.allocUnsafe(64 * 1024);
    for (let pos = from; ; ) {
      const n = readSync(fd, buf, 0, buf.length, pos);
      if (n === 0) return pos;
      const i = buf.subarray(0, n).indexOf(NL);
      if (i !== -1) return pos + i + 1;
      pos += n;
    }
  }

  #finishCurrent(output: SourceOutput<string>): void {
    if (this.#current) {
      closeSync(this.#current.fd);
      output.releaseOutputForSplit?.(splitId(this.#current.split));
    }
    this.#current = undefined;
    this.#queue.shift();
  }

  isAvailable(): Promise<void> {
    return new Promise((r) => setImmediate(r));
  }

  snapshotState(): TextFileSplit[] {
    return this.#queue.map((s, i) => (i === 0 && this.#current ? { ...s, offset: this.#current.offset } : s));
  }

  metrics(): Record<string, number> {
    return { invalid_utf8_lines: this.#invalidLines };
  }

  describeActivity(): string {
    const c = this.#current;
    return c ? `reading ${c.split.path} at byte ${c.offset} of [${c.split.start}, ${c.split.end})` : 'waiting for splits';
  }

  close(): void {
    if (this.#current) closeSync(this.#current.fd);
    this.#current = undefined;
  }
}

/**
 * The file offset up to which a freshly filled buffer holds only valid UTF-8 lines: its complete
 * lines are checked in one call, so that a clean file costs one isUtf8 per buffer, not per line.
 * A newline is never part of a multi-byte sequence, so the lines are valid exactly when all are.
 */
function validLinesEnd(cur: OpenSplit): number {
  const lastNl = cur.buf.lastIndexOf(NL, cur.bufLen - 1);
  if (lastNl <= 0 || !isUtf8(cur.buf.subarray(0, lastNl))) return cur.bufStart;
  return cur.bufStart + lastNl;
}
