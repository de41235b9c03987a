import { closeSync, fsyncSync, openSync, readdirSync, renameSync, statSync, unlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { SinkContext } from '../../api/sink.ts';
import type { Committer, PrecommittingSinkWriter, TwoPhaseCommittingSink } from '../../api/two-phase-committing-sink.ts';
import { makeDirectoriesSync } from '../../fs/make-directories.ts';
import { syncDirectorySync } from '../../fs/sync-directory.ts';
import { writeFullySync } from '../../fs/write-fully.ts';
import type { FileSinkOptions } from './plain-file-sink.ts';
import { commitPending, type FileCommittable, type FileSinkCommittable } from './file-committable.ts';

const FLUSH_BYTES = 64 * 1024;
const HIDDEN = /^\.part-.*\.(inprogress|pending)$/;

/**
 * Exactly-once file output by two-phase commit. Records go to a hidden in-progress file; a
 * checkpoint turns it into a hidden pending file, its committable; when the checkpoint completes
 * the pending files are renamed to visible `part-*` files. A reader of the directory sees
 * committed output only. On restore, the restored checkpoint's pending files are committed
 * (renaming is idempotent) and every other hidden file a failed attempt left is removed.
 * A committable names its directory: restored by a job writing elsewhere, it is still committed
 * where it was written.
 */
export class FileSink<T> implements TwoPhaseCommittingSink<T, FileSinkCommittable> {
  readonly directory: string;
  readonly #format: (value: T) => string;

  constructor(directory: string, options: FileSinkOptions<T> = {}) {
    this.directory = resolve(directory);
    this.#format = options.format ?? String;
  }

  createWriter(ctx: SinkContext): PrecommittingSinkWriter<T, FileSinkCommittable> {
    makeDirectoriesSync(this.directory);
    return new FileSinkWriter(this.directory, this.#format, attemptPrefix(ctx));
  }

  createCommitter(ctx: SinkContext): Committer<FileSinkCommittable> {
    makeDirectoriesSync(this.directory);
    return new FileCommitter(this.directory, attemptPrefix(ctx));
  }
}

/** The job id and attempt make the names of this attempt's files unique across restarts and runs. */
function attemptPrefix(ctx: SinkContext): string {
  return `.part-${ctx.subtaskIndex}-${ctx.jobId.slice(0, 8)}a${ctx.attemptNumber}-`;
}

class FileCommitter implements Committer<FileSinkCommittable> {
  readonly #dir: string;
  /** What this attempt's files (of every subtask) have in their names: they are not leftovers. */
  readonly #attempt: string;

  constructor(dir: string, prefix: string) {
    this.#dir = dir;
    this.#attempt = prefix.slice(prefix.indexOf('-', 6) + 1);
  }

  /**
   * A rename is durable only once its directory is: without the fsync a crash after the checkpoint
   * completed could lose the visible name while the checkpoint that would commit it again is gone.
   */
  commit(pending: readonly FileSinkCommittable[]): void {
    const renamedIn = new Set<string>();
    for (const c of pending) renamedIn.add(commitPending(c, this.#dir));
    for (const dir of renamedIn) syncDirectorySync(dir);
  }

  /** Hidden files neither retained nor of this attempt were left by a failed one. */
  recover(retained: readonly FileSinkCommittable[]): void {
    const keep = new Set(retained.filter((c) => typeof c === 'string' || c.directory === this.#dir).map((c) => (typeof c === 'string' ? c : c.name)));
    for (const name of readdirSync(this.#dir)) {
      if (!HIDDEN.test(name) || keep.has(name) || name.includes(this.#attempt)) continue;
      try {
        unlinkSync(join(this.#dir, name));
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      }
    }
  }
}

class FileSinkWriter<T> implements PrecommittingSinkWriter<T, FileCommittable> {
  readonly #dir: string;
  readonly #format: (value: T) => string;
  readonly #prefix: string;
  #seq = 0;
  #fd = -1;
  #file = '';
  #bytes = 0;
  #buffer = '';

  constructor(dir: string, format: (value: T) => string, prefix: string) {
    this.#dir = dir;
    this.#format = format;
    this.#prefix = prefix;
  }

  write(value: T): void {
    this.#buffer += this.#format(value) + '\n';
    if (this.#buffer.length >= FLUSH_BYTES) this.#flushBuffer();
  }

  /**
   * Every byte or an error: a short write that went unnoticed would be committed as a file with
   * records missing. A failed write fails the task; its in-progress file is never committed and
   * the restart removes it.
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

  flush(): void {
    this.#flushBuffer();
  }

  /** Pre-commit: the in-progress file, made durable, becomes pending and belongs to this checkpoint. */
  prepareCommit(): FileCommittable[] {
    this.#flushBuffer();
    if (this.#fd < 0) return [];
    fsyncSync(this.#fd);
    closeSync(this.#fd);
    this.#fd = -1;
    const pending = `${this.#file}.pending`;
    renameSync(join(this.#dir, `${this.#file}.inprogress`), join(this.#dir, pending));
    // The checkpoint will name the pending file: its entry must survive a crash as the data does.
    syncDirectorySync(this.#dir);
    this.#bytes = 0;
    return [{ directory: this.#dir, name: pending }];
  }

  close(): void {
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
