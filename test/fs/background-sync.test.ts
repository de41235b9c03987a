// A file written in order is synced in the background every N bytes, one sync at a time; the
// final sync waits for a running one; a failed background sync fails the file, naming it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FileHandle } from 'node:fs/promises';
import { open, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BackgroundSync } from '../../src/fs/background-sync.ts';
import { writeFully } from '../../src/fs/write-fully.ts';
import { makeTempDir, removeDir } from '../fixtures/recovery-helpers.ts';

/** A handle whose syncs are recorded and settle when the test says so. */
function fakeHandle() {
  const calls: string[] = [];
  const pending: Array<{ resolve: () => void; reject: (e: unknown) => void }> = [];
  const handle = {
    datasync: () => {
      calls.push('datasync');
      return new Promise<void>((resolve, reject) => pending.push({ resolve, reject }));
    },
    sync: () => {
      calls.push('sync');
      return Promise.resolve();
    },
  } as unknown as FileHandle;
  return { handle, calls, pending };
}

test('syncs every N bytes, never two at once, and the final sync waits for the running one', async () => {
  const { handle, calls, pending } = fakeHandle();
  const s = new BackgroundSync(handle, '/x/state', 100);
  s.wrote(99);
  assert.deepEqual(calls, []);
  s.wrote(100);
  assert.deepEqual(calls, ['datasync']);
  s.wrote(250); // the first one still runs
  assert.deepEqual(calls, ['datasync']);
  pending[0]!.resolve();
  await s.settle();
  s.wrote(260); // 160 since the last requested sync
  assert.deepEqual(calls, ['datasync', 'datasync']);
  let finished = false;
  const finishing = s.finish(300).then(() => void (finished = true));
  await new Promise((r) => setImmediate(r));
  assert.equal(finished, false, 'finish() returned before the running sync ended');
  assert.deepEqual(calls, ['datasync', 'datasync']);
  pending[1]!.resolve();
  await finishing;
  assert.deepEqual(calls, ['datasync', 'datasync', 'sync']);
});

test('a failed background sync fails finish() with the path and the bytes, and no sync follows it', async () => {
  const { handle, calls, pending } = fakeHandle();
  const s = new BackgroundSync(handle, '/x/state', 10);
  s.wrote(40);
  const eio = Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
  pending[0]!.reject(eio);
  await s.settle();
  s.wrote(100); // nothing more after a failure
  await assert.rejects(s.finish(120), (e: unknown) => {
    const err = e as Error & { path: string; offset: number; length: number; code: string };
    return err.name === 'FileWriteError' && err.path === '/x/state' && err.offset === 0 && err.length === 40 && err.code === 'EIO' && err.cause === eio;
  });
  assert.deepEqual(calls, ['datasync']);
});

test('on a real file: every byte is there after finish()', async () => {
  const dir = makeTempDir('weir-background-sync-');
  try {
    const path = join(dir, 'f');
    const fh = await open(path, 'w');
    const s = new BackgroundSync(fh, path, 64 * 1024);
    const chunk = new Uint8Array(40_000);
    let written = 0;
    try {
      for (let i = 0; i < 10; i++) {
        chunk.fill(i);
        await writeFully(fh, chunk, { path, offset: written });
        written += chunk.length;
        s.wrote(written);
      }
      await s.finish(written);
    } finally {
      await s.settle();
      await fh.close();
    }
    const back = await readFile(path);
    assert.equal(back.length, 400_000);
    for (let i = 0; i < 10; i++) assert.equal(back[i * 40_000 + 123], i);
  } finally {
    removeDir(dir);
  }
});
