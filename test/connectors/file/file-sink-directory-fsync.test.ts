// A FileSink commit is durable: the directory is fsynced after the pending files are renamed to
// their visible names (as `_metadata`'s directory is), and after the pre-commit rename the
// checkpoint refers to. Seen in a syscall trace (strace) of a process running one checkpoint. The
// fsyncs run on libuv's threads, not on the task's: on a busy disk one takes a second, and the
// task's thread runs every other task of its TaskManager thread meanwhile.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTempDir, removeDir } from '../../fixtures/recovery-helpers.ts';

const haveStrace = spawnSync('strace', ['-V']).status === 0;

/** The trace's raw lines, each prefixed with its thread's id. */
function traceRaw(dir: string, out: string): string[] {
  const child = join(import.meta.dirname, '../../fixtures/file-sink-one-checkpoint.ts');
  const r = spawnSync(
    'strace',
    ['-f', '-qq', '-o', out, '-e', 'trace=openat,rename,renameat,renameat2,fsync,fdatasync,close', process.execPath, '--import', 'tsx', '--conditions=weir-source', child, dir],
    { encoding: 'utf8' },
  );
  assert.equal(r.status, 0, r.stderr);
  return readFileSync(out, 'utf8').split('\n');
}

/** The syscalls of the trace as one line each, `pid` prefixes dropped. */
function trace(dir: string, out: string): string[] {
  return joinInterrupted(traceRaw(dir, out)).map((l) => l.slice(l.indexOf(' ') + 1));
}

/**
 * The trace's lines as `pid syscall`, a call that another thread's calls interrupted
 * (`fsync(19 <unfinished ...>` ... `<... fsync resumed>) = 0`) joined into one line where it ended.
 */
function joinInterrupted(raw: readonly string[]): string[] {
  const started = new Map<string, string>();
  const lines: string[] = [];
  for (const line of raw) {
    const [, pid = '', text = line] = /^(\d+)\s+(.*)$/.exec(line.trimEnd()) ?? [];
    if (text.endsWith('<unfinished ...>')) {
      started.set(pid, text.slice(0, -'<unfinished ...>'.length).trimEnd());
      continue;
    }
    const resumed = /^<\.\.\. \w+ resumed>(.*)$/.exec(text);
    const call = resumed && started.has(pid) ? started.get(pid)! + resumed[1] : text;
    if (resumed) started.delete(pid);
    lines.push(`${pid} ${call}`);
  }
  return lines;
}

/** Index of the first line at or after `from` that fsyncs `dir`: an openat of it whose fd is then fsynced. */
function directoryFsyncAfter(lines: readonly string[], dir: string, from: number): number {
  for (let i = from; i < lines.length; i++) {
    const open = new RegExp(`^openat\\(AT_FDCWD, "${dir}", [^)]*\\)\\s+= (\\d+)$`).exec(lines[i]!);
    if (!open) continue;
    const fsync = lines.findIndex((l, j) => j > i && l.startsWith(`fsync(${open[1]})`) && / = 0$/.test(l));
    const closed = lines.findIndex((l, j) => j > i && l.startsWith(`close(${open[1]})`));
    if (fsync > i && (closed < 0 || fsync < closed)) return fsync;
  }
  return -1;
}

test('FileSink fsyncs the directory after renaming a pending file to its part file, and after pre-commit', { skip: !haveStrace && 'strace is not installed' }, (t) => {
  const root = makeTempDir('file-sink-fsync');
  t.after(() => removeDir(root));
  const out = join(root, 'out');
  const lines = trace(out, join(root, 'strace.txt'));
  const commit = lines.findIndex((l) => /^rename(at2?)?\(.*\.part-0-[^"]*\.pending", .*"[^"]*\/part-0-[^"]*"/.test(l) && l.endsWith('= 0'));
  assert.ok(commit >= 0, `no commit rename in the trace:\n${lines.filter((l) => l.startsWith('rename')).join('\n')}`);
  assert.ok(directoryFsyncAfter(lines, out, commit) > commit, `the directory ${out} is not fsynced after the commit rename:\n${lines.slice(commit).join('\n')}`);
  const precommit = lines.findIndex((l) => /^rename(at2?)?\(.*\.inprogress", .*\.pending"/.test(l) && l.endsWith('= 0'));
  assert.ok(precommit >= 0 && precommit < commit, 'the pre-commit rename comes first');
  const synced = directoryFsyncAfter(lines, out, precommit);
  assert.ok(synced > precommit && synced < commit, `the directory is not fsynced between the pre-commit rename and the commit`);
});

test('FileSink fsyncs its part files and its directory on libuv\'s threads, not on the task\'s', { skip: !haveStrace && 'strace is not installed' }, (t) => {
  const root = makeTempDir('file-sink-fsync-thread');
  t.after(() => removeDir(root));
  const out = join(root, 'out');
  const raw = traceRaw(out, join(root, 'strace.txt')).filter((l) => l.trim() !== '');
  const main = /^(\d+)\s/.exec(raw[0]!)?.[1];
  assert.ok(main, `no thread id in the trace's first line: ${raw[0]}`);
  // A descriptor of the sink's files: a part file or the output directory, by the openat that returned it.
  const sinkFds = new Set<string>();
  const fsyncs: Array<{ pid: string; fd: string }> = [];
  for (const line of joinInterrupted(raw)) {
    const open = /^(\d+)\s+openat\(AT_FDCWD, "([^"]+)", [^)]*\)\s+= (\d+)$/.exec(line);
    if (open && (open[2] === out || open[2]!.startsWith(`${out}/.part-`))) sinkFds.add(open[3]!);
    const sync = /^(\d+)\s+f(?:data)?sync\((\d+)\)\s+= 0$/.exec(line);
    if (sync && sinkFds.has(sync[2]!)) fsyncs.push({ pid: sync[1]!, fd: sync[2]! });
  }
  assert.ok(fsyncs.length >= 3, `the part file, and the directory at pre-commit and at commit, are fsynced: ${JSON.stringify(fsyncs)}`);
  assert.deepEqual(fsyncs.filter((f) => f.pid === main), [], `fsyncs on the main thread (${main})`);
});

