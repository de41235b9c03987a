import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { InputStatus, Source, SourceOutput, SourceReader, SplitEnumeratorContext } from '../../api/source.ts';

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

  createReader(): SourceReader<string, TextFileSplit> {
    return new TextFileReader(this.#o.linesPerPoll ?? 256);
  }
}

const CHUNK = 256 * 1024;

interface OpenSplit {
  readonly split: TextFileSplit;
  readonly fd: number;
  /** Byte offset of the next line. */
  offset: number;
  buf: Buffer;
  /** File offset of buf[0]. */
  bufStart: number;
  bufLen: number;
}
const NL = 0x0a;

class TextFileReader implements SourceReader<string, TextFileSplit> {
  readonly #queue: TextFileSplit[] = [];
  readonly #linesPerPoll: number;
  #noMore = false;
  #current: OpenSplit | undefined;

  constructor(linesPerPoll: number) {
    this.#linesPerPoll = linesPerPoll;
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
        this.#finishCurrent();
        continue;
      }
      const line = this.#readLine(cur);
      if (line === undefined) {
        this.#finishCurrent();
        continue;
      }
      output.collect(line);
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
        const line = cur.buf.toString('utf8', rel, endByte);
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
      if (read === 0) {
        if (keep === 0) return undefined;
        // The last line of a file without a final newline.
        let endByte = keep;
        if (cur.buf[endByte - 1] === 0x0d) endByte--;
        const line = cur.buf.toString('utf8', 0, endByte);
        cur.offset += keep;
        return line;
      }
    }
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
    this.#current = { split, fd, offset, buf: Buffer.alloc(0), bufStart: offset, bufLen: 0 };
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

  #finishCurrent(): void {
    if (this.#current) closeSync(this.#current.fd);
    this.#current = undefined;
    this.#queue.shift();
  }

  isAvailable(): Promise<void> {
    return new Promise((r) => setImmediate(r));
  }

  snapshotState(): TextFileSplit[] {
    return this.#queue.map((s, i) => (i === 0 && this.#current ? { ...s, offset: this.#current.offset } : s));
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
