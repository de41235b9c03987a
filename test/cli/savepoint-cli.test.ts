// `weir run -s ... -n` into a job without some stateful operators: refused without -n, naming
// every unmatched uid and state; restored with -n or --allow-non-restored-state. The savepoint
// round trip through the command line (`weir savepoint`, `weir stop --savepoint`, `weir list`,
// `weir run -s` at other parallelisms and from a moved savepoint, `weir inspect`, `weir savepoint
// --dispose`) takes about a minute and a half: savepoint-cli.long.test.ts (test:long).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createJobMaster } from '../../src/index.ts';
import { diffSortedLines, expectedRunningCounts, JobEvents, makeTempDir, readCommittedLines, removeDir } from '../fixtures/recovery-helpers.ts';
import { wordCounts } from '../fixtures/savepoint-helpers.ts';
import { weir, weirEnv } from '../fixtures/weir-process.ts';

const EVOLUTION = fileURLToPath(new URL('../fixtures/jobs/savepoint-evolution.ts', import.meta.url));
const SEED = 5;

let root: string;
let env: NodeJS.ProcessEnv;

before(() => {
  root = makeTempDir('savepoint-cli-changed');
  env = weirEnv(root);
});
after(() => removeDir(root));

describe('weir run -s into a changed job', { timeout: 60_000 }, () => {
  const WORDS = 20_000;
  let savepoint: string;
  let baseOut: string;
  const args = (output: string) => ['--', '--words', String(WORDS), '--seed', String(SEED), '--output', output];

  before(async () => {
    // The savepoint of the base version, taken through the API (in this thread, quickly).
    baseOut = join(root, 'evolution-base');
    const events = new JobEvents();
    const master = await createJobMaster({
      job: EVOLUTION,
      args: args(baseOut).slice(1).concat(['--rate', '4000', '--checkpoint-interval', '100']),
      config: { 'parallelism.default': 2 },
      listener: events.listener,
    });
    const result = master.run();
    await master.whenRunning();
    await events.waitFor('two checkpoints', () => events.completed.length >= 2);
    savepoint = (await master.stopWithSavepoint(join(root, 'evolution-savepoints'))).directory;
    assert.equal((await result).status, 'FINISHED');
  });

  test('without -n the run fails naming every unmatched uid and state; with -n or --allow-non-restored-state it restores the rest', async () => {
    const copy = (name: string) => {
      const dir = join(root, name);
      cpSync(baseOut, dir, { recursive: true });
      return dir;
    };
    const outs = { refused: copy('dropped-refused'), short: copy('dropped-n'), long: copy('dropped-long') };
    const committedBefore = readCommittedLines(outs.refused);
    const runArgs = (output: string, ...flags: string[]) => ['run', '-D', 'rest.port=0', '-D', 'restart-strategy.type=none', '-p', '2', '-s', savepoint, ...flags, EVOLUTION, ...args(output), '--variant', 'dropped'];
    const [refused, short, long] = await Promise.all([
      weir(runArgs(outs.refused), env),
      weir(runArgs(outs.short, '-n'), env),
      weir(runArgs(outs.long, '--allow-non-restored-state'), env),
    ]);

    assert.notEqual(refused.code, 0, 'the run without -n fails');
    assert.match(refused.stderr, / FAILED in /);
    const cause = /^Cause: (.*)$/m.exec(refused.stderr)?.[1] ?? '';
    assert.match(cause, new RegExp(`^cannot restore from ${savepoint}: state of 2 operators has no operator in the job`));
    for (const text of ["uid 'stats' ('Stats', states: seen, longest)", "uid 'audit' ('Sink: audit', states: _sink-writer)", '--allow-non-restored-state']) {
      assert.ok(cause.includes(text), `the error names ${text}: ${cause}`);
    }
    assert.deepEqual(readCommittedLines(outs.refused), committedBefore, 'the refused run committed nothing');

    const expected = expectedRunningCounts(wordCounts(SEED, WORDS));
    for (const [flag, r, output] of [['-n', short, outs.short], ['--allow-non-restored-state', long, outs.long]] as const) {
      assert.equal(r.code, 0, `${flag}: ${r.stderr}`);
      assert.match(r.stderr, /^restored from savepoint \d+: /m);
      const diff = diffSortedLines(readCommittedLines(output), expected);
      assert.equal(diff, undefined, `${flag}: the committed output is not exactly-once: ${diff}`);
    }
  });
});
