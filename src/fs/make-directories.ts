import { mkdirSync, statSync } from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { systemErrorReason } from './system-error-reason.ts';
import { PseudoFileSystemError, refusePseudoFileSystem, refusePseudoFileSystemSync } from './pseudo-file-system.ts';

/**
 * `mkdir -p` that cannot spin: Node's `mkdir({recursive: true})` retries forever on procfs
 * (measured on Node 20: 100% CPU, never returns), so directories are made one path component at
 * a time, and only after the nearest existing ancestor was found not to be a pseudo-filesystem.
 */

/** A directory that cannot be made: names it and the system's reason. */
export class DirectoryError extends Error {
  readonly path: string;
  readonly code: string | undefined;
  constructor(path: string, cause: unknown) {
    const code = (cause as NodeJS.ErrnoException).code;
    super(`cannot create directory ${path}: ${systemErrorReason(cause)}`, { cause });
    this.name = 'DirectoryError';
    this.path = path;
    this.code = code;
  }
}

type Kind = 'dir' | 'file' | 'none';

function kindOf(p: string, probe: () => { isDirectory(): boolean }): Kind {
  try {
    return probe().isDirectory() ? 'dir' : 'file';
  } catch (e) {
    // ENOTDIR: a file further up; walking up finds it and names it.
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return 'none';
    throw new DirectoryError(p, e);
  }
}

function notADirectory(target: string, p: string): DirectoryError {
  return new DirectoryError(target, Object.assign(new Error(`${p} is a file, not a directory (ENOTDIR)`), { code: 'ENOTDIR', ours: true }));
}

/**
 * mkdir said ENOTDIR: a directory the walk found became a file since (another process, a test's
 * fault). Named like the walk names it, by the file; the system's words when it is gone again.
 */
function raced(target: string, dir: string, cause: unknown, kind: (p: string) => Kind): DirectoryError {
  for (let q = dirname(dir); dirname(q) !== q; q = dirname(q)) if (kind(q) === 'file') return notADirectory(target, q);
  return new DirectoryError(dir, cause);
}

async function racedAsync(target: string, dir: string, cause: unknown, kind: (p: string) => Promise<Kind>): Promise<DirectoryError> {
  for (let q = dirname(dir); dirname(q) !== q; q = dirname(q)) if ((await kind(q)) === 'file') return notADirectory(target, q);
  return new DirectoryError(dir, cause);
}

/**
 * The existing directory the walk found could not be statfs'd: a PseudoFileSystemError as it is;
 * ENOTDIR or ENOENT, it was moved or a part of it became a file since (named as the walk would
 * name it); else a DirectoryError with the system's words.
 */
function statfsFailed<R>(e: unknown, dir: string, raced: () => R): R | Error {
  if (e instanceof PseudoFileSystemError) return e;
  const code = (e as NodeJS.ErrnoException).code;
  return code === 'ENOTDIR' || code === 'ENOENT' ? raced() : new DirectoryError(dir, e);
}

/** Makes `path` and its missing parents; refuses pseudo-filesystems (PseudoFileSystemError). */
export function makeDirectoriesSync(path: string): void {
  const target = resolve(path);
  const missing: string[] = [];
  let p = target;
  for (let kind = kindOf(p, () => statSync(p)); kind !== 'dir' && dirname(p) !== p; kind = kindOf(p, () => statSync(p))) {
    if (kind === 'file') throw notADirectory(target, p);
    missing.push(p);
    p = dirname(p);
  }
  try {
    refusePseudoFileSystemSync(p, target);
  } catch (e) {
    throw statfsFailed(e, p, () => raced(target, p, e, (q) => kindOf(q, () => statSync(q))));
  }
  for (const dir of missing.reverse()) {
    try {
      mkdirSync(dir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOTDIR') throw raced(target, dir, e, (q) => kindOf(q, () => statSync(q)));
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || kindOf(dir, () => statSync(dir)) !== 'dir') throw new DirectoryError(dir, e);
    }
  }
}

/** The same without blocking the thread (coordinator, checkpoint storage). */
export async function makeDirectories(path: string): Promise<void> {
  const target = resolve(path);
  const missing: string[] = [];
  const kindAt = async (p: string): Promise<Kind> => stat(p).then((s) => kindOf(p, () => s), (e) => kindOf(p, () => { throw e; }));
  let p = target;
  for (let kind = await kindAt(p); kind !== 'dir' && dirname(p) !== p; kind = await kindAt(p)) {
    if (kind === 'file') throw notADirectory(target, p);
    missing.push(p);
    p = dirname(p);
  }
  try {
    await refusePseudoFileSystem(p, target);
  } catch (e) {
    throw await statfsFailed(e, p, () => racedAsync(target, p, e, kindAt));
  }
  for (const dir of missing.reverse()) {
    try {
      await mkdir(dir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOTDIR') throw await racedAsync(target, dir, e, kindAt);
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || (await kindAt(dir)) !== 'dir') throw new DirectoryError(dir, e);
    }
  }
}
