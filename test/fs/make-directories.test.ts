// Directories are made one component at a time, and never on a kernel pseudo-filesystem: Node's
// recursive mkdir spins forever on procfs. Refusals are by filesystem type, not by path.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeDirectories, makeDirectoriesSync } from '../../src/fs/make-directories.ts';
import { makeTempDir, removeDir } from '../fixtures/recovery-helpers.ts';
import { replaceBuiltin } from '../fixtures/replace-builtin.ts';

const refused = (path: string, type: string) => (e: unknown) =>
  (e as Error).name === 'PseudoFileSystemError' && (e as { path: string }).path === path && (e as { fsType: string }).fsType === type && (e as Error).message.includes(`on a ${type} filesystem`);

test('targets on proc and sysfs are refused at once, naming the path and the type, with little CPU', async () => {
  const cpu = process.cpuUsage();
  await assert.rejects(makeDirectories('/proc/self/weir/savepoints'), refused('/proc/self/weir/savepoints', 'proc'));
  await assert.rejects(makeDirectories('/proc/self'), refused('/proc/self', 'proc'));
  assert.throws(() => makeDirectoriesSync('/proc/self/out'), refused('/proc/self/out', 'proc'));
  await assert.rejects(makeDirectories('/sys/kernel/weir'), refused('/sys/kernel/weir', 'sysfs'));
  const used = process.cpuUsage(cpu);
  assert.ok(used.user + used.system < 500_000, `refusing took ${(used.user + used.system) / 1000} ms of CPU`);
});

test('a real tmpfs (/dev/shm) and a temp dir are fine; missing parents are made', async (t) => {
  const dir = makeTempDir('mkdirs');
  t.after(() => removeDir(dir));
  await makeDirectories(join(dir, 'a', 'b', 'c'));
  makeDirectoriesSync(join(dir, 'x', 'y'));
  await makeDirectories(join(dir, 'a', 'b', 'c'));
  assert.ok(statSync(join(dir, 'a', 'b', 'c')).isDirectory());
  assert.ok(statSync(join(dir, 'x', 'y')).isDirectory());
  if (existsSync('/dev/shm')) {
    const shm = join('/dev/shm', `weir-mkdirs-${process.pid}`);
    t.after(() => removeDir(shm));
    await makeDirectories(join(shm, 'd'));
    assert.ok(statSync(join(shm, 'd')).isDirectory());
  }
});

test('a file in the way is named (ENOTDIR), not reported as a missing directory', async (t) => {
  const dir = makeTempDir('mkdirs-file');
  t.after(() => removeDir(dir));
  writeFileSync(join(dir, 'file'), 'x');
  await assert.rejects(makeDirectories(join(dir, 'file', 'sub')), (e: Error & { code?: string }) => e.name === 'DirectoryError' && e.code === 'ENOTDIR' && e.message === `cannot create directory ${join(dir, 'file', 'sub')}: ${join(dir, 'file')} is a file, not a directory (ENOTDIR)`);
});

// The existing directory the walk found is statfs'd to refuse pseudo-filesystems; another subtask
// (or a fault) can replace a part of its path by a file between the walk and that statfs.
for (const variant of ['async', 'sync'] as const) {
  test(`a part of the path that becomes a file between the walk and the statfs is named as the walk names it (${variant})`, async (t) => {
    const dir = makeTempDir('mkdirs-race');
    t.after(() => removeDir(dir));
    const jobs = join(dir, 'jobs');
    const existing = join(jobs, 'chk-3');
    mkdirSync(existing, { recursive: true });
    const becomeAFile = (p: unknown) => {
      if (p !== existing) return;
      rmSync(jobs, { recursive: true });
      writeFileSync(jobs, 'not a directory');
    };
    if (variant === 'async') replaceBuiltin<(p: string) => Promise<unknown>>(t, 'node:fs/promises', 'statfs', (original) => (p) => (becomeAFile(p), original(p)));
    else replaceBuiltin<(p: string) => unknown>(t, 'node:fs', 'statfsSync', (original) => (p) => (becomeAFile(p), original(p)));
    const target = join(existing, 'sub');
    const expected = (e: unknown) => {
      assert.equal((e as Error).name, 'DirectoryError');
      assert.equal((e as Error).message, `cannot create directory ${target}: ${jobs} is a file, not a directory (ENOTDIR)`);
      return true;
    };
    if (variant === 'async') await assert.rejects(makeDirectories(target), expected);
    else assert.throws(() => makeDirectoriesSync(target), expected);
  });
}
