// A subtask that fails while the job finishes after its stop-with-savepoint completed (here a sink
// whose close throws): the savepoint is the job's last commit, so the job ends FINISHED and is not
// restarted from a checkpoint older than the savepoint (which would read and commit again what the
// savepoint committed); resumed from the savepoint it finishes with every word counted once.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createJobMaster, defineJob } from '../../src/index.ts';
import type { Sink } from '../../src/api/sink.ts';
import { DataGen } from '../../src/connectors/datagen/index.ts';
import { FileSink } from '../../src/connectors/file/index.ts';
import { createLogger } from '../../src/log/logger.ts';
import { diffSortedLines, expectedRunningCounts, JobEvents, makeTempDir, readCommittedLines, removeDir } from '../fixtures/recovery-helpers.ts';
import { assertSameCounts, committedMaxCounts, countsBeforeSplits, readWordCountSavepoint, wordCounts } from '../fixtures/savepoint-helpers.ts';

const SEED = 13;
const WORDS = 40_000;

let root: string;
before(() => {
  root = makeTempDir('stop-failure');
});
after(() => removeDir(root));

/** A sink that takes everything and, while `failing.close` is set, fails to close. */
function closeFailingSink(failing: { close: boolean }): Sink<string> {
  return {
    createWriter: () => ({
      write: () => {},
      close: () => {
        if (failing.close) throw new Error('planned failure while closing');
      },
    }),
  };
}

function job(output: string, failing: { close: boolean }, rate?: number) {
  return defineJob((env) => {
    env.enableCheckpointing(100);
    env.setParallelism(2);
    const lines = env
      .fromSource(DataGen.words({ seed: SEED, count: WORDS, ...(rate ? { ratePerSecond: rate } : {}) }), { name: 'Source: words', uid: 'source' })
      .map((word: string) => ({ word, count: 1 }), { name: 'Map' })
      .keyBy((r) => r.word)
      .sum('count', { name: 'Sum', uid: 'counts' })
      .map((r) => `${r.word}\t${r.count}`, { name: 'Format' });
    lines.sinkTo(new FileSink<string>(output), { name: 'Sink: files', uid: 'sink' });
    lines.sinkTo(closeFailingSink(failing), { name: 'Sink: failing close', uid: 'failing' });
  });
}

test('a failure after the savepoint completed ends the job FINISHED, not restarted from an older checkpoint', { timeout: 60_000 }, async () => {
  const output = join(root, 'out');
  const failing = { close: true };
  const config = {
    'execution.checkpointing.dir': join(root, 'checkpoints'),
    'restart-strategy.type': 'fixed-delay',
    'restart-strategy.fixed-delay.attempts': 3,
    'restart-strategy.fixed-delay.delay': '50 ms',
  } as const;
  const logged: string[] = [];
  const events = new JobEvents();
  const master = await createJobMaster({ job: job(output, failing, 8000), config, listener: events.listener, log: createLogger({ level: 'warn', json: true, write: (l) => logged.push(l) }) });
  const result = master.run();
  await master.whenRunning();
  await events.waitFor('two checkpoints', () => events.completed.length >= 2, 30_000);
  const savepoint = await master.stopWithSavepoint(join(root, 'savepoints'));
  const r = await result;
  assert.deepEqual([r.status, r.restarts], ['FINISHED', 0], `the job ended ${r.status} after ${r.restarts} restarts: ${r.error?.message ?? ''}; ${events.describe()}`);
  assert.ok(
    logged.some((l) => l.includes('planned failure while closing') && l.includes(`after stop-with-savepoint ${savepoint.id} completed`)),
    `the failure after the savepoint is logged:\n${logged.join('\n')}`,
  );

  // Nothing committed after the savepoint but what it holds.
  const sp = await readWordCountSavepoint(savepoint.directory);
  assertSameCounts(sp.counts, countsBeforeSplits(SEED, sp.splits), "the savepoint's counts against the words before its source positions");
  assertSameCounts(committedMaxCounts(output), sp.counts, "the committed output against the savepoint's counts");
  assert.ok(sp.counts.size > 0, 'the job had read something before the stop');

  failing.close = false;
  const resumed = await createJobMaster({ job: job(output, failing), config, restoreFrom: savepoint.directory });
  const end = await resumed.run();
  assert.equal(end.status, 'FINISHED', end.error?.message);
  const diff = diffSortedLines(readCommittedLines(output), expectedRunningCounts(wordCounts(SEED, WORDS)));
  assert.equal(diff, undefined, `stopped and resumed, the committed output is not exactly w\\t1..w\\tn for every word: ${diff}`);
});

test('a second stop-with-savepoint while the first runs is refused, saying the job is stopping already', { timeout: 60_000 }, async () => {
  const events = new JobEvents();
  const config = { 'execution.checkpointing.dir': join(root, 'checkpoints-twice') } as const;
  const master = await createJobMaster({ job: job(join(root, 'out-twice'), { close: false }, 8000), config, listener: events.listener, log: createLogger({ level: 'error', write: () => {} }) });
  const result = master.run();
  await master.whenRunning();
  await events.waitFor('a checkpoint', () => events.completed.length >= 1, 30_000);
  const first = master.stopWithSavepoint(join(root, 'savepoints-twice'));
  await assert.rejects(master.stopWithSavepoint(join(root, 'savepoints-twice')), (e: Error) => {
    assert.equal(e.name, 'SavepointError');
    assert.match(e.message, /cannot be stopped with a savepoint now: it is stopping with a savepoint already/);
    return true;
  });
  await first;
  assert.equal((await result).status, 'FINISHED');
});
