// A retained checkpoint whose files are damaged: recovery skips it for the previous one when
// allowed (and the output stays exactly-once when nothing was committed between the two), and
// starting from it on purpose fails with CheckpointCorruptedError naming the damaged file. Without
// the allowance a fallback past committed output fails the job: duplicating-fallback.long.test.ts (test:long).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, truncateSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { CheckpointCorruptedError, createJobMaster, createLogger, executeJob } from '../../src/index.ts';
import { DataGen } from '../../src/connectors/datagen/index.ts';
import { seededRandom } from '../../src/coordinator/fault-injector.ts';
import {
  ControlledSource,
  diffSortedLines,
  expectedRunningCounts,
  JobEvents,
  makeTempDir,
  readCommittedLines,
  removeDir,
  REPO_ROOT,
  writeWordsFile,
  wordCountToFiles,
} from '../fixtures/recovery-helpers.ts';
import { corruptStateFile } from '../fixtures/corrupt-checkpoint.ts';
import { weir } from '../fixtures/weir-process.ts';

let root: string;
before(() => {
  root = makeTempDir('corrupt');
});
after(() => removeDir(root));

describe('a corrupted latest checkpoint', () => {
  test('with fallback-past-committed allow, recovery falls back to the previous retained checkpoint, and the output is still exactly-once', async () => {
    const dir = join(root, 'fallback');
    const output = join(dir, 'output');
    const rnd = seededRandom(99);
    const vocabulary = Array.from({ length: 300 }, (_, i) => `w${i}`);
    const words = Array.from({ length: 12_000 }, () => vocabulary[Math.floor(rnd() * rnd() * vocabulary.length)]!);
    const counts = new Map<string, number>();
    for (const w of words) counts.set(w, (counts.get(w) ?? 0) + 1);

    // The test holds the source back (a gate) and makes it fail once (a flag), from this thread.
    const control = { open: true, fail: false };
    const source = new ControlledSource(DataGen.of((i) => words[i]!, { count: words.length }), {
      ratePerSecond: 5000,
      open: () => control.open,
      beforePoll: () => {
        if (!control.fail) return;
        control.fail = false;
        throw new Error('planned source failure');
      },
    });
    const job = wordCountToFiles(source, output, 100);
    const logged: string[] = [];
    const events = new JobEvents();
    const master = await createJobMaster({
      job,
      config: {
        'execution.checkpointing.dir': join(dir, 'checkpoints'),
        'execution.checkpointing.num-retained': 2,
        // The file sink was told to commit the newest checkpoint: a fallback past it is refused unless
        // allowed. Its output here is empty (the gate was closed), so allowing it doubles nothing.
        'execution.checkpointing.fallback-past-committed': 'allow',
        'restart-strategy.type': 'fixed-delay',
        'restart-strategy.fixed-delay.attempts': 3,
        'restart-strategy.fixed-delay.delay': '50 ms',
      },
      listener: events.listener,
      log: createLogger({ level: 'error', json: true, write: (line) => logged.push(line) }),
    });

    const result = master.run();

    await events.waitFor('two checkpoints while data flows', () => events.completed.some((c) => c.id >= 2));
    assert.equal(master.status, 'RUNNING');
    // Checkpoints taken after the gate closed all hold the same positions and state: falling back
    // from one to the one before loses nothing and replays nothing that was committed. No periodic
    // checkpoints from here on (the restart starts them again), so the two taken here are the
    // newest when the source fails.
    control.open = false;
    master.checkpoints.pauseScheduler();
    const previous = await master.checkpoints.trigger({ type: 'checkpoint', force: true });
    const newest = await master.checkpoints.trigger({ type: 'checkpoint', force: true });
    assert.equal(newest.id, previous.id + 1);
    const corrupted = { id: newest.id, file: corruptStateFile(newest.directory), retained: master.checkpoints.store.all().map((x) => x.id) };
    control.fail = true;
    const restored = await events.waitFor('the restore', () => events.restored[0]);
    control.open = true;
    const r = await result;

    assert.deepEqual(corrupted.retained, [corrupted.id - 1, corrupted.id], 'num-retained 2 keeps the two newest checkpoints');
    assert.equal(events.restarts.length, 1, `expected one restart: ${events.describe()}`);
    assert.match(events.restarts[0]!.cause, /planned source failure/);
    assert.equal(restored.checkpointId, corrupted.id - 1, `restored checkpoint ${restored.checkpointId}, the corrupted one is ${corrupted.id}`);
    assert.equal(master.checkpoints.stats.latestRestored?.id, corrupted.id - 1);
    assert.ok(
      logged.some((l) => l.includes(`checkpoint ${corrupted!.id} cannot be restored`) && l.includes(corrupted!.file) && l.includes('checksum mismatch') && l.includes('committed twice')),
      `the fallback was not logged with the damaged file: ${logged.join('\n')}`,
    );

    assert.equal(r.status, 'FINISHED', `job did not finish: ${r.error?.message}`);
    const diff = diffSortedLines(readCommittedLines(output), expectedRunningCounts(counts));
    assert.equal(diff, undefined, `committed output is not exactly-once: ${diff}`);
  });
});

describe('no readable checkpoint is left', () => {
  test('the job fails with the CheckpointCorruptedError instead of starting over and committing output twice', async () => {
    const dir = join(root, 'none-left');
    const output = join(dir, 'output');
    const words = Array.from({ length: 20_000 }, (_, i) => `w${(i * 7919) % 37}`);
    const control = { fail: false };
    const source = new ControlledSource(DataGen.of((i) => words[i]!, { count: words.length }), {
      ratePerSecond: 4000,
      beforePoll: () => {
        if (!control.fail) return;
        control.fail = false;
        throw new Error('planned source failure');
      },
    });
    const job = wordCountToFiles(source, output, 100);
    const events = new JobEvents();
    const master = await createJobMaster({
      job,
      config: {
        'execution.checkpointing.dir': join(dir, 'checkpoints'),
        'restart-strategy.type': 'fixed-delay',
        'restart-strategy.fixed-delay.attempts': 3,
        'restart-strategy.fixed-delay.delay': '50 ms',
      },
      listener: events.listener,
      log: createLogger({ level: 'error', write: () => {} }),
    });
    const result = master.run();
    await events.waitFor('three checkpoints', () => events.completed.some((c) => c.id >= 3));
    // No periodic checkpoint from here on: the one taken now is the newest, and with num-retained
    // 1 (the default) the only one, when the source fails.
    master.checkpoints.pauseScheduler();
    const newest = await master.checkpoints.trigger({ type: 'checkpoint', force: true });
    assert.deepEqual(master.checkpoints.store.all().map((c) => c.id), [newest.id]);
    const corrupted = corruptStateFile(newest.directory);
    control.fail = true;
    const r = await result;
    assert.equal(r.status, 'FAILED', `the job went on without a checkpoint: ${events.describe()}`);
    assert.ok(r.error instanceof CheckpointCorruptedError, `expected a CheckpointCorruptedError, got ${r.error?.name}: ${r.error?.message}`);
    assert.equal(r.error.file, corrupted);
    assert.deepEqual(events.restored, []);
    // What was committed stays a consistent prefix: no line twice.
    const lines = readCommittedLines(output);
    assert.ok(lines.length > 0 && lines.length < words.length);
    assert.equal(new Set(lines).size, lines.length, 'output was committed twice');
  });
});

describe('starting from a damaged checkpoint', () => {
  let checkpoint: string;
  let input: string;

  before(async () => {
    // A finished run of the example that keeps its final checkpoint.
    input = join(root, 'cli-words.txt');
    writeWordsFile(input, { seed: 5, bytes: 20_000 });
    const r = await executeJob({
      job: join(REPO_ROOT, 'examples', 'wordcount.ts'),
      args: ['--input', input, '--output', join(root, 'cli-output-1'), '--checkpoint-interval', '100'],
      config: { 'parallelism.default': 2, 'execution.checkpointing.dir': join(root, 'cli-checkpoints') },
      retainCheckpointsOnFinish: true,
      log: createLogger({ level: 'error' }),
    });
    assert.equal(r.status, 'FINISHED');
    assert.ok(r.latestCheckpoint && existsSync(join(r.latestCheckpoint, '_metadata')));
    checkpoint = r.latestCheckpoint;
  });

  test('weir run --from-savepoint fails and names the damaged state file', async () => {
    const damaged = corruptStateFile(checkpoint);
    const output = join(root, 'cli-output-2');
    const { code, stderr } = await weir(['run', join(REPO_ROOT, 'examples', 'wordcount.ts'), '-p', '2', '--from-savepoint', checkpoint, '--', '--input', input, '--output', output]);
    assert.notEqual(code, 0, `weir run succeeded from a damaged checkpoint:\n${stderr}`);
    assert.ok(stderr.includes(`${damaged}: checksum mismatch`), `the error does not name ${damaged}:\n${stderr}`);
    assert.ok(!existsSync(output) || readdirSync(output).length === 0, 'the job ran and wrote output');
  });

  test('the error is a CheckpointCorruptedError naming the file: damaged state file, truncated _metadata', async () => {
    const run = async () => {
      const master = await createJobMaster({
        job: join(REPO_ROOT, 'examples', 'wordcount.ts'),
        args: ['--input', input, '--output', join(root, 'cli-output-3')],
        restoreFrom: checkpoint,
        log: createLogger({ level: 'error', write: () => {} }),
      });
      return master.run();
    };
    // The state file damaged by the previous test (or damage it now if run alone).
    let r = await run();
    if (r.status !== 'FAILED') {
      corruptStateFile(checkpoint);
      r = await run();
    }
    assert.equal(r.status, 'FAILED');
    assert.ok(r.error instanceof CheckpointCorruptedError, `expected a CheckpointCorruptedError, got ${r.error?.name}: ${r.error?.message}`);
    assert.match(r.error.file, /counts-\d+-\d+$/);
    assert.ok(r.error.message.startsWith(`${r.error.file}: `));

    const metadata = join(checkpoint, '_metadata');
    truncateSync(metadata, statSync(metadata).size - 7);
    r = await run();
    assert.equal(r.status, 'FAILED');
    assert.ok(r.error instanceof CheckpointCorruptedError, `expected a CheckpointCorruptedError, got ${r.error?.name}: ${r.error?.message}`);
    assert.equal(r.error.file, metadata);
    assert.match(r.error.message, /_metadata: truncated: body has \d+ of \d+ bytes$/);
  });
});
