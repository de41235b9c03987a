// The file sink's fsyncs run off the task's thread (on libuv's); these are their failure and
// ordering paths, with node's fs functions replaced for one test (replaceBuiltin): an fsync that
// fails fails its pre-commit naming the file, as does a rename that fails, and a rolled file is
// renamed pending before its fsync and closed only after it, never while it runs.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { readlinkSync, unlinkSync } from 'node:fs';
import { basename } from 'node:path';
import type { SinkContext } from '../../../src/api/sink.ts';
import { defaultRollingPolicy, FileSink } from '../../../src/connectors/file/index.ts';
import { FileRenameError } from '../../../src/fs/file-rename-error.ts';
import { FileWriteError } from '../../../src/fs/file-write-error.ts';
import { makeTempDir, removeDir } from '../../fixtures/recovery-helpers.ts';
import { replaceBuiltin } from '../../fixtures/replace-builtin.ts';

type FdCall = (fd: number, done: (e: NodeJS.ErrnoException | null) => void) => void;
const replace = (t: TestContext, name: 'fsync' | 'close', by: (original: FdCall) => FdCall) => replaceBuiltin<FdCall>(t, 'node:fs', name, by);

const eio = (): NodeJS.ErrnoException => Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
const noop = () => {};
const context = { jobId: 'feedbeeffeedbeef', operatorName: 'sink', operatorUid: 'sink', subtaskIndex: 0, parallelism: 1, maxParallelism: 128, attemptNumber: 0, log: { debug: noop, info: noop, warn: noop, error: noop } } as unknown as SinkContext;
const KiB = 'x'.repeat(1023);

function sinkIn(t: TestContext, maxPartSize = 128 * 1024 * 1024) {
  const dir = makeTempDir('file-sink-sync-failures');
  t.after(() => removeDir(dir));
  return { dir, sink: new FileSink<string>(dir, { rollingPolicy: defaultRollingPolicy({ maxPartSize }) }) };
}

test('an fsync that fails at the pre-commit fails it, naming the part file', async (t) => {
  const { dir, sink } = sinkIn(t);
  replace(t, 'fsync', () => (_fd, done) => setImmediate(() => done(eio())));
  const writer = await sink.createWriter(context);
  writer.write('a');
  await assert.rejects(async () => writer.prepareCommit(1), (e: unknown) => e instanceof FileWriteError && e.path === `${dir}/.part-0-feedbeefa0-0.inprogress` && e.code === 'EIO');
  writer.abort?.();
});

test('a rolled part file whose rename to pending fails fails the pre-commit, naming both paths', async (t) => {
  const { dir, sink } = sinkIn(t, 2048);
  const writer = await sink.createWriter(context);
  writer.write(KiB);
  writer.write(KiB); // 2 KiB: the part file rolls, its rename queued
  unlinkSync(`${dir}/.part-0-feedbeefa0-0.inprogress`); // before the rename runs
  await assert.rejects(
    async () => writer.prepareCommit(1),
    (e: unknown) => e instanceof FileRenameError && e.from === `${dir}/.part-0-feedbeefa0-0.inprogress` && e.to === `${dir}/.part-0-feedbeefa0-0.pending` && e.code === 'ENOENT',
  );
  writer.abort?.();
});

test('a rolled part file is renamed pending before its fsync, closed after it, not while it runs, and the pre-commit waits for both', async (t) => {
  const { sink } = sinkIn(t, 2048);
  const events: string[] = [];
  let release: (() => void) | undefined;
  // The rolled file's fsync (its descriptor's path, whichever name it has then) is held until released; the open file's at the cut is not.
  replace(t, 'fsync', (original) => (fd, done) => {
    const name = basename(readlinkSync(`/proc/self/fd/${fd}`));
    if (!name.startsWith('.part-0-feedbeefa0-0.')) return original(fd, done);
    events.push(`fsync ${fd} started`, `fsync ${fd} of ${name}`);
    release = () => original(fd, (e) => {
      events.push(`fsync ${fd} done`);
      done(e);
    });
  });
  replace(t, 'close', (original) => (fd, done) => {
    events.push(`close ${fd}`);
    original(fd, done);
  });
  const writer = await sink.createWriter(context);
  writer.write(KiB);
  writer.write(KiB); // 2 KiB: the part file is written and rolls
  writer.write(KiB); // into the next part file, open at the cut
  const precommit = Promise.resolve(writer.prepareCommit(1));
  let settled = false;
  void precommit.then(() => (settled = true), () => (settled = true));
  for (let i = 0; i < 10 && release === undefined; i++) await new Promise((resolve) => setImmediate(resolve));
  assert.ok(release, 'the rolled file\'s fsync started');
  for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
  const fd = /^fsync (\d+) started$/.exec(events.find((e) => e.endsWith(' started'))!)![1];
  assert.deepEqual(events.filter((e) => e === `close ${fd}`), [], `closed while its fsync runs: ${events.join(', ')}`);
  assert.equal(settled, false, 'the pre-commit waits for the fsync');
  // Renamed first: on ext4 the file's fsync then commits the rename, and the directory's fsync beside it waits for that same journal commit.
  assert.ok(events.includes(`fsync ${fd} of .part-0-feedbeefa0-0.pending`), `renamed pending before its fsync: ${events.join(', ')}`);
  release();
  const committables = await precommit;
  assert.deepEqual(committables.map((c) => (typeof c === 'string' ? c : c.name)), ['.part-0-feedbeefa0-0.pending', '.part-0-feedbeefa0-1.inprogress']);
  assert.deepEqual(events.filter((e) => /^(fsync \d+ (started|done)|close \d+)$/.test(e) && e.includes(` ${fd}`)).slice(0, 3), [`fsync ${fd} started`, `fsync ${fd} done`, `close ${fd}`]);
  writer.abort?.();
});
