import { close, fsync, openSync, readdirSync, statSync, unlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { SinkContext } from '../../api/sink.ts';
import type { Committer, PrecommitCheckpoint, PrecommittingSinkWriter, TwoPhaseCommittingSink } from '../../api/two-phase-committing-sink.ts';
import { FileWriteError } from '../../fs/file-write-error.ts';
import { makeDirectoriesSync } from '../../fs/make-directories.ts';
import { renameFile } from '../../fs/rename-file.ts';
import { syncDirectory } from '../../fs/sync-directory.ts';
import { writeFullySync } from '../../fs/write-fully.ts';
import type { FileSinkOptions } from './plain-file-sink.ts';
import {
  commitInProgress,
  commitPending,
  isInProgressFile,
  pendingName,
  type FileCommittable,
  type FileSinkCommittable,
  type InProgressFile,
} from './file-committable.ts';
import { defaultRollingPolicy, shouldRollOnCheckpoint, shouldRollOnWrite, type PartFileInfo, type RollingPolicy } from './rolling-policy.ts';

const FLUSH_BYTES = 64 * 1024;
// On libuv's threads: an fsync under a busy disk can take a second, and the task's thread runs
// every other task of its TaskManager thread (sources, their barriers, the RPC) meanwhile. The
// fs functions are looked up at each call, not bound once, so a test can make one fail.
const onLibuv = (call: (fd: number, done: (e: NodeJS.ErrnoException | null) => void) => void, fd: number) =>
  new Promise<void>((resolve, reject) => call(fd, (e) => (e ? reject(e) : resolve())));
const fsyncAsync = (fd: number) => onLibuv(fsync, fd);
const closeAsync = (fd: number) => onLibuv(close, fd);
const noop = () => {};
const HIDDEN = /^\.part-.*\.(inprogress|pending)$/;

export interface FileSinkConfig<T> extends FileSinkOptions<T> {
  /**
   * When a part file is closed and a new one started. Default defaultRollingPolicy() (Flink's
   * DefaultRollingPolicy: 128 MiB, 60 s rollover, 60 s inactivity): a part file stays open across
   * checkpoints, so a job leaves a file per minute or per 128 MiB, not one per checkpoint; output
   * becomes visible when its file rolls and the next checkpoint completes. Every savepoint rolls
   * the open file (unlike Flink, which leaves it hidden until the job resumes), so the output
   * before a savepoint or a stop-with-savepoint is visible once it completes, and a savepoint holds
   * no open file. onCheckpointRollingPolicy(): a new part file at every checkpoint with output,
   * for output visible at every checkpoint.
   */
  readonly rollingPolicy?: RollingPolicy;
}

/**
 * Exactly-once file output by two-phase commit. Records go to a hidden in-progress file, kept
 * open across checkpoints until the rolling policy rolls it; each checkpoint records its fsynced
 * length. A rolled file becomes a hidden pending file, the next checkpoint's committable;
 * when the checkpoint completes the pending files are renamed to visible `part-*` files and the
 * directory fsynced. A reader of the directory sees committed output only. On restore, the
 * restored checkpoint's pending files are committed (renaming is idempotent), its in-progress
 * files cut back to their recorded lengths and committed, and every other hidden file a failed
 * attempt left is removed. A committable names its directory: restored by a job writing
 * elsewhere, it is still committed where it was written.
 */
export class FileSink<T> implements TwoPhaseCommittingSink<T, FileSinkCommittable> {
  readonly directory: string;
  readonly #format: (value: T) => string;
  readonly #policy: RollingPolicy;

  constructor(directory: string, options: FileSinkConfig<T> = {}) {
    this.directory = resolve(directory);
    this.#format = options.format ?? String;
    this.#policy = options.rollingPolicy ?? defaultRollingPolicy();
  }

  createWriter(ctx: SinkContext): PrecommittingSinkWriter<T, FileSinkCommittable> {
    makeDirectoriesSync(this.directory);
    return new FileSinkWriter(this.directory, this.#format, attemptPrefix(ctx), this.#policy);
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

/** A hidden file of the restored state, by its directory and name. */
function key(c: { readonly directory: string; readonly name: string }): string {
  return `${c.directory}\0${c.name}`;
}

class FileCommitter implements Committer<FileSinkCommittable> {
  readonly #dir: string;
  /** What this attempt's files (of every subtask) have in their names: they are not leftovers. */
  readonly #attempt: string;
  /** The restored checkpoint's open part files, at their latest recorded length: committed on restore, not at a checkpoint's completion. */
  readonly #restoredOpen = new Map<string, number>();

  constructor(dir: string, prefix: string) {
    this.#dir = dir;
    this.#attempt = prefix.slice(prefix.indexOf('-', 6) + 1);
  }

  /**
   * A rename is durable only once its directory is: without the fsync a crash after the checkpoint
   * completed could lose the visible name while the checkpoint that would commit it again is gone.
   */
  async commit(pending: readonly FileSinkCommittable[]): Promise<void> {
    const renamedIn = new Set<string>();
    for (const c of pending) {
      if (!isInProgressFile(c)) renamedIn.add(commitPending(c, this.#dir));
      else if (this.#restoredOpen.get(key(c)) === c.length) renamedIn.add(commitInProgress(c, this.#dir));
    }
    for (const dir of renamedIn) await syncDirectory(dir);
  }

  /** Hidden files neither retained nor of this attempt were left by a failed one. */
  recover(retained: readonly FileSinkCommittable[]): void {
    this.#noteRestoredOpen(retained);
    const mine = retained.filter((c) => typeof c === 'string' || c.directory === this.#dir);
    const keep = new Set(mine.flatMap((c) => (typeof c === 'string' ? [c] : isInProgressFile(c) ? [c.name, pendingName(c.name)] : [c.name])));
    for (const name of readdirSync(this.#dir)) {
      if (!HIDDEN.test(name) || keep.has(name) || name.includes(this.#attempt)) continue;
      try {
        unlinkSync(join(this.#dir, name));
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      }
    }
  }

  /**
   * State can hold a file more than once (checkpoints whose completion was not yet noticed) and a
   * file that a later checkpoint of it rolled: the longest length is the restored checkpoint's,
   * and a rolled one is committed as its pending file.
   */
  #noteRestoredOpen(retained: readonly FileSinkCommittable[]): void {
    const rolled = new Set(retained.flatMap((c) => (typeof c === 'object' && !isInProgressFile(c) ? [key(c)] : [])));
    for (const c of retained) {
      if (!isInProgressFile(c) || rolled.has(key({ directory: c.directory, name: pendingName(c.name) }))) continue;
      this.#restoredOpen.set(key(c), Math.max(c.length, this.#restoredOpen.get(key(c)) ?? 0));
    }
  }
}

interface OpenPart extends PartFileInfo {
  readonly file: string;
  readonly fd: number;
}

class FileSinkWriter<T> implements PrecommittingSinkWriter<T, FileSinkCommittable> {
  readonly #dir: string;
  readonly #format: (value: T) => string;
  readonly #prefix: string;
  readonly #policy: RollingPolicy;
  #seq = 0;
  #part: OpenPart | undefined;
  /** Files rolled since the last checkpoint, each renamed pending, then fsynced and closed, in the background. */
  #rolled: Array<{ readonly name: string; readonly renamed: Promise<void>; readonly durable: Promise<void> }> = [];
  /** The background work on each part file's descriptor, in order (see #onFd). */
  readonly #fdWork = new Map<number, Promise<void>>();
  /** The asynchronous parts of the pre-commits, one after the other. */
  #precommits: Promise<void> = Promise.resolve();
  #buffer = '';
  /** The input has ended: the last pre-commits roll everything. */
  #ended = false;
  /** A file was created since the directory was last fsynced: the next checkpoint names it. */
  #newEntries = false;

  constructor(dir: string, format: (value: T) => string, prefix: string, policy: RollingPolicy) {
    this.#dir = dir;
    this.#format = format;
    this.#prefix = prefix;
    this.#policy = policy;
  }

  write(value: T): void {
    this.#buffer += this.#format(value) + '\n';
    if (this.#buffer.length >= FLUSH_BYTES || (this.#part?.bytes ?? 0) + this.#buffer.length >= this.#policy.maxPartSize) this.#flushBuffer();
  }

  /**
   * Every byte or an error: a short write that went unnoticed would be committed as a file with
   * records missing. A failed write fails the task; its in-progress file is committed only up to
   * the last checkpoint's length, and the restart removes what no checkpoint names.
   */
  #flushBuffer(): void {
    if (this.#buffer.length === 0) return;
    const part = this.#part ?? this.#open();
    const bytes = Buffer.from(this.#buffer, 'utf8');
    this.#buffer = '';
    writeFullySync(part.fd, bytes, { path: join(this.#dir, `${part.file}.inprogress`), offset: part.bytes });
    // Taken per flush, not per record (a clock read per record on the hot path): the inactivity a
    // policy measures is then late by at most one flush, which comes at least every checkpoint.
    this.#part = { ...part, bytes: part.bytes + bytes.length, lastWriteAt: Date.now() };
    if (shouldRollOnWrite(this.#policy, this.#part)) this.#roll();
  }

  /**
   * Makes the part file durable, in order on its descriptor. No fdatasync in the background as
   * the file grows (as state files have): on ext4 each is a journal commit of its own, and under
   * a disk busy with fsyncs a pre-commit then waited for two commits in a row instead of one
   * (measured: checkpoints of the 10x title scenario expired with the pre-commit 2 s behind a
   * background sync).
   */
  #durable(part: OpenPart, name: string, then: () => Promise<void> = () => Promise.resolve()): Promise<void> {
    const path = join(this.#dir, name);
    const { fd, bytes } = part;
    return this.#onFd(fd, async () => {
      try {
        await fsyncAsync(fd).catch((e: unknown) => {
          throw new FileWriteError({ path, offset: 0, length: bytes, written: 0 }, e);
        });
      } finally {
        await then();
      }
    });
  }

  #open(): OpenPart {
    const file = `${this.#prefix}${this.#seq++}`;
    const now = Date.now();
    this.#newEntries = true;
    return { file, fd: openSync(join(this.#dir, `${file}.inprogress`), 'w'), bytes: 0, openedAt: now, lastWriteAt: now };
  }

  /**
   * Work on a part file's descriptor runs after the work before it on the same descriptor: a
   * close never overtakes an fsync still running (its number could be reused by then).
   */
  #onFd(fd: number, work: () => Promise<void>): Promise<void> {
    const done = (this.#fdWork.get(fd) ?? Promise.resolve()).then(work);
    const settled = done.then(noop, noop);
    this.#fdWork.set(fd, settled);
    void settled.then(() => this.#fdWork.get(fd) === settled && this.#fdWork.delete(fd));
    return done;
  }

  /**
   * Closes the part file: renamed pending at once, then made durable in the background; the next
   * checkpoint names it. Renamed before its fsync, so that on a journaling file system (ext4, xfs)
   * that fsync commits the rename with the data and the pre-commit's directory fsync, started
   * beside the file's, waits for the same journal commit instead of one more. A crash before that
   * checkpoint leaves a pending file that no checkpoint names, removed on restore as any other.
   */
  #roll(): void {
    const part = this.#part;
    if (part === undefined) return;
    this.#part = undefined;
    const pending = `${part.file}.pending`;
    const renamed = this.#onFd(part.fd, () => renameFile(join(this.#dir, `${part.file}.inprogress`), join(this.#dir, pending)));
    const durable = this.#durable(part, pending, () => closeAsync(part.fd));
    // Awaited by the next pre-commit, whose failure fails the task; until then not unhandled.
    renamed.catch(noop);
    durable.catch(noop);
    this.#rolled.push({ name: pending, renamed, durable });
  }

  flush(): void {
    this.#ended = true;
    this.#flushBuffer();
  }

  /**
   * Pre-commit: at the cut, the rolled files and the open part file's length are taken; then, as
   * the checkpoint's asynchronous part while records go on being written, the rolled files (this
   * checkpoint's committables, renamed pending as they rolled) are made durable, and the open one
   * up to at least that length. The checkpoint names both: their directory entries are made
   * durable as well. At the end of input and at a savepoint the open file rolls.
   */
  prepareCommit(_checkpointId?: number, checkpoint?: PrecommitCheckpoint): Promise<FileSinkCommittable[]> {
    this.#flushBuffer();
    const rollNow = this.#ended || checkpoint?.savepoint === true;
    if (this.#part && (rollNow || shouldRollOnCheckpoint(this.#policy, this.#part, Date.now()))) this.#roll();
    const rolled = this.#rolled;
    const part = this.#part;
    // Queued at the cut: a roll of this file before the work below reaches it closes it after this fsync.
    const open = part && { name: `${part.file}.inprogress`, length: part.bytes, durable: this.#durable(part, `${part.file}.inprogress`) };
    open?.durable.catch(noop);
    const newEntries = this.#newEntries;
    this.#rolled = [];
    this.#newEntries = false;
    const dir = this.#dir;
    const work = this.#precommits.then(async () => {
      // The directory's fsync covers the renames once they are done, and runs beside the files'.
      for (const r of rolled) await r.renamed;
      const entries = rolled.length > 0 || newEntries ? syncDirectory(dir) : undefined;
      await Promise.all([...rolled.map((r) => r.durable), open?.durable, entries]);
      const committables: FileSinkCommittable[] = rolled.map((r) => ({ directory: dir, name: r.name }));
      if (open) committables.push({ directory: dir, name: open.name, length: open.length });
      return committables;
    });
    this.#precommits = work.then(noop, noop);
    return work;
  }

  close(): void {
    this.abort();
  }

  /**
   * Closes the open part file after the background work on it. Not awaited: a cancellation must
   * not wait for an fsync a hung disk holds; the failed attempt's files are hidden and a restore
   * removes them.
   */
  abort(): void {
    const part = this.#part;
    this.#part = undefined;
    if (part) this.#onFd(part.fd, () => closeAsync(part.fd)).catch(noop);
  }
}

/** The committed part files of a FileSink directory (what a reader may see). */
export function committedFiles(directory: string): string[] {
  return readdirSync(directory)
    .filter((n) => n.startsWith('part-') && statSync(join(directory, n)).isFile())
    .sort()
    .map((n) => join(directory, n));
}
