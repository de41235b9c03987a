import { closeSync, fsyncSync, openSync, readdirSync, renameSync, statSync, unlinkSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Sink, SinkContext, SinkWriter } from '../../api/sink.ts';
import { makeDirectoriesSync } from '../../fs/make-directories.ts';
import { writeFullySync } from '../../fs/write-fully.ts';
import type { FileSinkOptions } from './plain-file-sink.ts';

/** What a checkpoint remembers of a writer: the pending files that belong to it. */
export interface FileSinkState {
  readonly checkpointId: number;
  readonly pending: readonly string[];
}

const FLUSH_BYTES = 64 * 1024;
const HIDDEN = /^\.part-.*\.(inprogress|pending)$/;

/**
 * Exactly-once file output by two-phase commit. Records go to a hidden in-progress file; a
 * checkpoint turns it into a hidden pending file that belongs to that checkpoint; when the
 * checkpoint completes the pending files are renamed to visible `part-*` files. A reader of the
 * directory sees committed output only. On restore, the restored checkpoint's pending files are
 * committed (committing is idempotent) and every other hidden file is discarded.
 */
export class FileSink<T> implements Sink<T, FileSinkState> {
  readonly stateRedistribution = 'union' as const;
  readonly directory: string;
  readonly #format: (value: T) => string;

  constructor(directory: string, options: FileSinkOptions<T> = {}) {
    this.directory = resolve(directory);
    this.#format = options.format ?? String;
  }

  createWriter(ctx: SinkContext, restored: readonly FileSinkState[]): SinkWriter<T, FileSinkState> {
    makeDirectoriesSync(this.directory);
    return new FileSinkWriter(this.directory, this.#format, ctx, restored);
  }
}

/** The visible name of a pending file: `.part-X.pending` -> `part-X`. */
export function committedName(pending: string): string {
  return pending.slice(1, -'.pending'.length);
}

class FileSinkWriter<T> implements SinkWriter<T, FileSinkState> {
  readonly #dir: string;
  readonly #format: (value: T) => string;
  readonly #prefix: string;
  readonly #pending = new Map<number, string[]>();
  #seq = 0;
  #fd = -1;
  #file = '';
  #bytes = 0;
  #buffer = '';
  #ended = false;

  constructor(dir: string, format: (value: T) => string, ctx: SinkContext, restored: readonly FileSinkState[]) {
    this.#dir = dir;
    this.#format = format;
    // The job id and attempt make the names of this attempt's files unique across restarts and runs.
    this.#prefix = `.part-${ctx.subtaskIndex}-${ctx.jobId.slice(0, 8)}a${ctx.attemptNumber}-`;
    this.#recover(restored, ctx);
  }

  /** Commits what the restored checkpoint owns (each subtask its share) and discards older hidden files. */
  #recover(restored: readonly FileSinkState[], ctx: SinkContext): void {
    const referenced = [...new Set(restored.flatMap((s) => s.pending))].sort();
    referenced.forEach((name, i) => {
      if (i % ctx.parallelism === ctx.subtaskIndex) this.#commit(name);
    });
    const keep = new Set(referenced);
    const token = this.#prefix.slice(this.#prefix.indexOf('-', 6) + 1);
    for (const name of readdirSync(this.#dir)) {
      if (!HIDDEN.test(name) || keep.has(name) || name.includes(token)) continue;
      try {
        unlinkSync(join(this.#dir, name));
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      }
    }
  }

  #commit(pendingName: string): void {
    const from = join(this.#dir, pendingName);
    const to = join(this.#dir, committedName(pendingName));
    try {
      renameSync(from, to);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT' && existsSync(to)) return;
      throw new Error(`file sink: cannot commit ${from}: ${(e as Error).message}`);
    }
  }

  write(value: T): void {
    this.#buffer += this.#format(value) + '\n';
    if (this.#buffer.length >= FLUSH_BYTES) this.#flushBuffer();
  }

  /**
   * Every byte or an error: a short write that went unnoticed would be committed as a file with
   * records missing. A failed write fails the task; its in-progress file is never committed and
   * the restart discards it.
   */
  #flushBuffer(): void {
    if (this.#buffer.length === 0) return;
    if (this.#fd < 0) {
      this.#file = `${this.#prefix}${this.#seq++}`;
      this.#fd = openSync(join(this.#dir, `${this.#file}.inprogress`), 'w');
    }
    const bytes = Buffer.from(this.#buffer, 'utf8');
    this.#buffer = '';
    writeFullySync(this.#fd, bytes, { path: join(this.#dir, `${this.#file}.inprogress`), offset: this.#bytes });
    this.#bytes += bytes.length;
  }

  /** Pre-commit: the in-progress file becomes pending and belongs to this checkpoint. */
  #roll(): string | undefined {
    this.#flushBuffer();
    if (this.#fd < 0) return undefined;
    fsyncSync(this.#fd);
    closeSync(this.#fd);
    this.#fd = -1;
    const pending = `${this.#file}.pending`;
    renameSync(join(this.#dir, `${this.#file}.inprogress`), join(this.#dir, pending));
    this.#bytes = 0;
    return pending;
  }

  flush(): void {
    this.#ended = true;
    this.#flushBuffer();
  }

  snapshotState(checkpointId: number): FileSinkState[] {
    const rolled = this.#roll();
    if (rolled) this.#pending.set(checkpointId, [rolled]);
    const all = [...this.#pending.values()].flat();
    return all.length > 0 ? [{ checkpointId, pending: all }] : [];
  }

  /** Commits every pending file up to this checkpoint: notifications can be skipped or late. */
  notifyCheckpointComplete(checkpointId: number): void {
    for (const [id, files] of [...this.#pending]) {
      if (id > checkpointId) continue;
      for (const f of files) this.#commit(f);
      this.#pending.delete(id);
    }
  }

  /** The job finished. Without checkpoints nothing committed the output yet: the finished input is final. */
  close(): void {
    if (this.#ended) {
      const rolled = this.#roll();
      if (rolled) this.#pending.set(Number.MAX_SAFE_INTEGER, [rolled]);
      this.notifyCheckpointComplete(Number.MAX_SAFE_INTEGER);
    }
    this.abort();
  }

  abort(): void {
    if (this.#fd >= 0) {
      closeSync(this.#fd);
      this.#fd = -1;
    }
  }
}

/** The committed part files of a FileSink directory (what a reader may see). */
export function committedFiles(directory: string): string[] {
  return readdirSync(directory)
    .filter((n) => n.startsWith('part-') && statSync(join(directory, n)).isFile())
    .sort()
    .map((n) => join(directory, n));
}
