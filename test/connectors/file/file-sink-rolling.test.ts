// The FileSink's rolling policy keeps a part file open across checkpoints: a job with many
// checkpoints leaves part files by its policy (size here), not one or two per checkpoint; and it
// stays exactly-once through injected failures, each restore cutting the open file back to the
// length its checkpoint recorded. The writer and committer alone: a file open at a checkpoint is
// cut back to that checkpoint's length on restore, also when the failed attempt rolled it since.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SinkContext } from '../../../src/api/sink.ts';
import { committedFiles, defaultRollingPolicy, FileSink, onCheckpointRollingPolicy } from '../../../src/connectors/file/index.ts';
import { makeTempDir, removeDir } from '../../fixtures/recovery-helpers.ts';
import { rollingRun } from '../../fixtures/file-sink-rolling-run.ts';

describe('FileSink rolling policy in a job', () => {
  test('many checkpoints, no failures: part files by size, not per checkpoint', { timeout: 60_000 }, (t) =>
    rollingRun(t, { checkpointInterval: 10, linesPerSecond: 1500, bytes: 120_000, failures: 0, minCheckpoints: 40 }),
  );
  test('many checkpoints and 4 injected failures with files open across checkpoints: exactly once', { timeout: 60_000 }, (t) =>
    rollingRun(t, { checkpointInterval: 10, linesPerSecond: 1500, bytes: 120_000, failures: 4, minCheckpoints: 40 }),
  );
});

const noop = () => {};
function context(attemptNumber: number): SinkContext {
  const log = { debug: noop, info: noop, warn: noop, error: noop };
  return { jobId: 'feedbeeffeedbeef', operatorName: 'sink', operatorUid: 'sink', subtaskIndex: 0, parallelism: 1, maxParallelism: 128, attemptNumber, log } as unknown as SinkContext;
}

describe('FileSink open part file on restore', () => {
  for (const rolledSince of [false, true]) {
    test(`cut back to the restored checkpoint's length${rolledSince ? ', though the failed attempt rolled it since' : ''}`, async (t) => {
      const dir = makeTempDir('file-sink-cut-back');
      t.after(() => removeDir(dir));
      const sink = new FileSink<string>(dir, { rollingPolicy: defaultRollingPolicy({ maxPartSize: rolledSince ? 40 : 1024 }) });
      const writer = await sink.createWriter(context(0));
      for (const r of ['a', 'b', 'c']) writer.write(r);
      const checkpoint1 = await writer.prepareCommit(1);
      assert.deepEqual(checkpoint1, [{ directory: dir, name: '.part-0-feedbeefa0-0.inprogress', length: 6 }]);
      await (await sink.createCommitter(context(0))).commit(checkpoint1);
      assert.deepEqual(committedFiles(dir), [], 'still open: not committed at its checkpoint');
      for (let i = 0; i < 10; i++) writer.write(`after-${i}`);
      if (rolledSince) assert.equal((await writer.prepareCommit(2)).length, 2, 'checkpoint 2 (never completed) rolls it: pending');
      await writer.abort?.();

      const committer = await sink.createCommitter(context(1));
      await committer.recover?.(checkpoint1);
      await committer.commit(checkpoint1);
      await committer.commit(checkpoint1);
      assert.deepEqual(committedFiles(dir), [join(dir, 'part-0-feedbeefa0-0')]);
      assert.equal(readFileSync(join(dir, 'part-0-feedbeefa0-0'), 'utf8'), 'a\nb\nc\n');
      assert.deepEqual(readdirSync(dir).filter((n) => n.startsWith('.')), [], 'what the failed attempt wrote after checkpoint 1 is gone');
    });
  }

  test('today\'s committables (pending files, bare names) and the on-checkpoint policy still commit as before', async (t) => {
    const dir = makeTempDir('file-sink-on-checkpoint');
    t.after(() => removeDir(dir));
    const sink = new FileSink<string>(dir, { rollingPolicy: onCheckpointRollingPolicy() });
    const writer = await sink.createWriter(context(0));
    writer.write('x');
    const c1 = await writer.prepareCommit(1);
    assert.deepEqual(c1, [{ directory: dir, name: '.part-0-feedbeefa0-0.pending' }]);
    writer.write('y');
    const c2 = (await writer.prepareCommit(2)).map((c) => (c as { name: string }).name);
    const committer = await sink.createCommitter(context(1));
    await committer.recover?.([...c1, ...c2]);
    await committer.commit([...c1, ...c2]);
    assert.deepEqual(committedFiles(dir), [join(dir, 'part-0-feedbeefa0-0'), join(dir, 'part-0-feedbeefa0-1')]);
  });
});

describe('FileSink by default', () => {
  test('keeps the part file open across checkpoints, and rolls it at a savepoint so what came before is visible once it completes', async (t) => {
    const dir = makeTempDir('file-sink-default-savepoint');
    t.after(() => removeDir(dir));
    const sink = new FileSink<string>(dir);
    const writer = await sink.createWriter(context(0));
    const committer = await sink.createCommitter(context(0));
    writer.write('a');
    const c1 = await writer.prepareCommit(1, { savepoint: false });
    assert.deepEqual(c1, [{ directory: dir, name: '.part-0-feedbeefa0-0.inprogress', length: 2 }], 'a checkpoint keeps the file open');
    await committer.commit(c1);
    writer.write('b');
    const c2 = await writer.prepareCommit(2, { savepoint: false });
    assert.deepEqual(c2, [{ directory: dir, name: '.part-0-feedbeefa0-0.inprogress', length: 4 }], 'the same file, longer');
    await committer.commit(c2);
    assert.deepEqual(committedFiles(dir), [], 'nothing visible while the file is open');

    writer.write('c');
    const s3 = await writer.prepareCommit(3, { savepoint: true });
    assert.deepEqual(s3, [{ directory: dir, name: '.part-0-feedbeefa0-0.pending' }], 'a savepoint holds no open file');
    await committer.commit(s3);
    assert.deepEqual(committedFiles(dir), [join(dir, 'part-0-feedbeefa0-0')]);
    assert.equal(readFileSync(join(dir, 'part-0-feedbeefa0-0'), 'utf8'), 'a\nb\nc\n', 'everything before the savepoint is visible at its completion');

    writer.write('d');
    assert.deepEqual(await writer.prepareCommit(4, { savepoint: false }), [{ directory: dir, name: '.part-0-feedbeefa0-1.inprogress', length: 2 }], 'writing goes on in a new file');
    await writer.abort?.();
  });
});
