// Savepoints through the command line: `weir run` serving REST on a free port, `weir savepoint`,
// `weir stop --savepoint`, `weir list`, `weir run -s` at other parallelisms (from a moved
// savepoint too), `weir inspect` against what the job committed, `weir savepoint --dispose`. In
// test:long: the round trip takes about a minute and a half. `weir run -s ... -n` into a job
// without some stateful operators is in savepoint-cli.test.ts (npm test).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { keyGroupFor } from '../../src/index.ts';
import { committedFiles } from '../../src/connectors/file/index.ts';
import { diffSortedLines, expectedRunningCounts, makeTempDir, readCommittedLines, removeDir } from '../fixtures/recovery-helpers.ts';
import { assertSameCounts, committedMaxCounts, countsBeforeSplits, emitted, readWordCountSavepoint, wordCounts, WORDCOUNT } from '../fixtures/savepoint-helpers.ts';
import { completedCheckpoints, startWeirRun, weir, weirEnv, type WeirProcess } from '../fixtures/weir-process.ts';

const SEED = 5;
const MAX_PARALLELISM = 128;

let root: string;
let env: NodeJS.ProcessEnv;
const runs: WeirProcess[] = [];

before(() => {
  root = makeTempDir('savepoint-cli');
  env = weirEnv(root);
});
after(() => {
  for (const r of runs) r.kill();
  removeDir(root);
});

function run(args: readonly string[]): WeirProcess {
  const r = startWeirRun(args, env);
  runs.push(r);
  return r;
}

function savepointPath(result: { code: number | null; stdout: string; stderr: string }, what: string): string {
  assert.equal(result.code, 0, `${what} failed: ${result.stderr}`);
  const m = /^Savepoint completed\. Path: (\S+)$/m.exec(result.stdout);
  assert.ok(m, `${what} printed no path: ${result.stdout}`);
  return m[1]!;
}

async function waitForCheckpoints(r: WeirProcess, n: number): Promise<void> {
  const target = completedCheckpoints(r).length + n;
  await r.waitFor(`${n} more completed checkpoints`, (x) => completedCheckpoints(x).length >= target);
}

/** Flink's key-group ranges, worked out by hand: subtask i owns ceil(i*128/p) .. ceil((i+1)*128/p)-1. */
const RANGES: Record<number, Array<[number, number]>> = {
  2: [[0, 63], [64, 127]],
  3: [[0, 42], [43, 85], [86, 127]],
};

/** `weir inspect` (listing, JSON listing, dump of counts/_reduce) of a stop-with-savepoint's savepoint, against the words and the committed output. */
async function checkInspect(path: string, output: string, parallelism: number): Promise<void> {
  const facts = await readWordCountSavepoint(path);
  // The counts the words before the savepoint's source positions give, worked out here.
  const expected = countsBeforeSplits(SEED, facts.splits);
  const [dump, json, human] = await Promise.all([
    weir(['inspect', path, '--uid', 'counts', '--state', '_reduce'], env),
    weir(['inspect', path, '--json'], env),
    weir(['inspect', path], env),
  ]);

  // The dump: one JSON line per word, the count the live job held at the savepoint.
  assert.equal(dump.code, 0, dump.stderr);
  const dumped = new Map<string, number>();
  for (const line of dump.stdout.split('\n').filter((l) => l !== '')) {
    const { key, value, keyGroup } = JSON.parse(line) as { key: string; value: { word: string; count: number }; keyGroup: number };
    assert.equal(value.word, key);
    assert.equal(keyGroup, keyGroupFor(key, MAX_PARALLELISM), `key group of ${key}`);
    assert.ok(!dumped.has(key), `${key} dumped twice`);
    dumped.set(key, value.count);
  }
  assertSameCounts(dumped, expected, 'weir inspect --state _reduce against the words before the source positions');
  // After a stop-with-savepoint, the committed output's highest count per word is what the state held.
  assertSameCounts(committedMaxCounts(output), dumped, 'the committed output against weir inspect --state _reduce');

  // Per subtask of the counts operator: its key-group range and its entries.
  const perSubtask = RANGES[parallelism]!.map(([start, end]) => {
    const groups = [...expected.keys()].map((w) => keyGroupFor(w, MAX_PARALLELISM)).filter((g) => g >= start && g <= end);
    return { keyGroups: `${Math.min(...groups)}..${Math.max(...groups)}`, entries: groups.length };
  });
  const keyGroupsInUse = new Set([...expected.keys()].map((w) => keyGroupFor(w, MAX_PARALLELISM))).size;

  assert.equal(json.code, 0, json.stderr);
  const summary = JSON.parse(json.stdout) as {
    path: string;
    type: string;
    checkpointId: number;
    formatVersion: number;
    operators: Array<{
      uid: string;
      name: string;
      parallelism: number;
      maxParallelism: number;
      subtasks: Array<{ subtask: number; keyGroups: string | null; entries: number; bytes: number }>;
      keyedStates: Array<{ name: string; kind: string; serializer: string; serializerSnapshot: unknown; description: string; entries: number; keyGroups: number }>;
      operatorStates: Array<{ name: string; mode: string; entries: number }>;
    }>;
  };
  assert.equal(summary.path, path);
  assert.equal(summary.type, 'savepoint');
  assert.equal(summary.checkpointId, facts.checkpointId);
  assert.equal(summary.formatVersion, 4);
  assert.deepEqual(summary.operators.map((o) => o.name), ['Source: words', 'Map', 'Sum', 'Format', 'Sink: files']);
  for (const o of summary.operators) assert.equal(o.parallelism, parallelism, `parallelism of ${o.name}`);
  const counts = summary.operators.find((o) => o.uid === 'counts')!;
  assert.equal(counts.maxParallelism, MAX_PARALLELISM);
  assert.deepEqual(counts.keyedStates, [
    { name: '_reduce', kind: 'value', serializer: 'msgpack@1', serializerSnapshot: { kind: 'msgpack', version: 1, schema: { kind: 'any' } }, description: 'msgpack v1', entries: expected.size, keyGroups: keyGroupsInUse },
  ]);
  assert.deepEqual(counts.subtasks.map((s) => ({ keyGroups: s.keyGroups, entries: s.entries })), perSubtask);
  for (const s of counts.subtasks) assert.ok(s.bytes > 0, `subtask ${s.subtask} has bytes`);
  const source = summary.operators.find((o) => o.uid === 'source')!;
  // The datagen source always has its two lanes (splits), whatever the parallelism.
  assert.deepEqual(source.operatorStates, [{ name: '_source-splits', mode: 'split', entries: 2 }]);
  assert.deepEqual(source.keyedStates, []);
  const sink = summary.operators.find((o) => o.uid === 'sink')!;
  assert.deepEqual(sink.operatorStates.map((s) => [s.name, s.mode]), [['_sink-committables', 'union']]);

  assert.equal(human.code, 0, human.stderr);
  const text = human.stdout;
  for (const line of [
    `savepoint ${facts.checkpointId} of job `,
    `  ${path}`,
    `operator 'Source: words'  uid source  parallelism ${parallelism}  maxParallelism ${MAX_PARALLELISM}`,
    `  operator state '_source-splits' (split): 2 entries`,
    `operator 'Sum'  uid counts  parallelism ${parallelism}  maxParallelism ${MAX_PARALLELISM}`,
    `  keyed state '_reduce' (value, msgpack v1): ${expected.size.toLocaleString('en-US')} entries in ${keyGroupsInUse} key groups`,
    ...perSubtask.map((s, i) => `    subtask ${i}: key groups ${s.keyGroups}, ${s.entries.toLocaleString('en-US')} entries, ${counts.subtasks[i]!.bytes.toLocaleString('en-US')} bytes (state file format 2)`),
    `operator 'Sink: files'  uid sink  parallelism ${parallelism}`,
    `  operator state '_sink-committables' (union): `,
  ]) {
    assert.ok(text.includes(line), `weir inspect lists ${JSON.stringify(line)}:\n${text}`);
  }
}

describe('savepoints through the CLI', { timeout: 300_000 }, () => {
  let midRun: string;
  let firstStop: string;
  let out: string;

  test('weir run -p 2, weir savepoint, weir stop --savepoint, weir run -s at p3, stop --drain, move, weir run -s at p1: exactly-once; weir inspect matches', async (t) => {
    // 66 s of input at 6,000 words/s: the phases up to the second stop need a few of them, but on a
    // machine at load 15 they took over 25 s, and the job at p3 ended its input before `weir stop
    // --drain` reached it (ECONNREFUSED, twice). The last phase reads the rest without a rate limit.
    const WORDS = 400_000;
    out = join(root, 'out');
    const sps = join(root, 'savepoints');
    const job = (...rate: string[]) => ['--', '--words', String(WORDS), '--seed', String(SEED), '--output', out, '--checkpoint-interval', '200', ...rate];

    // Parallelism 2 on two worker TaskManagers.
    const first = run([WORDCOUNT, '-p', '2', '--task-managers', '2', '--checkpoint-dir', join(root, 'checkpoints'), ...job('--rate', '6000')]);
    const [jobId, jm] = await Promise.all([first.jobId(), first.jobManager()]);
    await waitForCheckpoints(first, 1);
    midRun = savepointPath(await weir(['savepoint', jobId, sps, '--jobmanager', jm], env), 'weir savepoint');
    const list = await weir(['list', '--jobmanager', jm, '--json'], env);
    assert.equal(list.code, 0, list.stderr);
    const listed = (JSON.parse(list.stdout) as { jobs: Array<{ id: string; status: string }> }).jobs;
    assert.deepEqual(listed.map((j) => [j.id, j.status]), [[jobId, 'RUNNING']]);
    await waitForCheckpoints(first, 2);
    firstStop = savepointPath(await weir(['stop', jobId, '--savepoint', sps, '--jobmanager', jm], env), 'weir stop');
    assert.equal(await first.finished(), 0, first.tail());
    assert.ok(first.lines.some((l) => l === `Job ${jobId} FINISHED` || l.startsWith(`Job ${jobId} FINISHED in `)), first.tail());

    const mid = await readWordCountSavepoint(midRun);
    assertSameCounts(mid.counts, countsBeforeSplits(SEED, mid.splits), 'the mid-run savepoint against the words before its source positions');
    await checkInspect(firstStop, out, 2);
    const stop1 = await readWordCountSavepoint(firstStop);
    assert.ok(emitted(mid.splits) > 0 && emitted(mid.splits) < emitted(stop1.splits), 'the job read on after the mid-run savepoint');
    assert.ok(emitted(stop1.splits) < WORDS, 'the input ended before the stop: make it larger');

    // Parallelism 3.
    const second = run([WORDCOUNT, '-p', '3', '--task-managers', '2', '-s', firstStop, ...job('--rate', '6000')]);
    const [jobId2, jm2] = await Promise.all([second.jobId(), second.jobManager()]);
    assert.notEqual(jobId2, jobId);
    await second.waitFor('the restore', (r) => r.lines.includes(`restored from savepoint ${stop1.checkpointId}: ${firstStop}`));
    await waitForCheckpoints(second, 2);
    // This time draining: the input ends first, every operator flushes; the job still resumes after it.
    const drained = await weir(['stop', jobId2, '--savepoint', sps, '--drain', '--jobmanager', jm2], env);
    assert.match(drained.stderr, /with a savepoint \(draining\)/);
    const secondStop = savepointPath(drained, 'weir stop --drain at p3');
    assert.equal(await second.finished(), 0, second.tail());
    await checkInspect(secondStop, out, 3);
    const stop2 = await readWordCountSavepoint(secondStop);
    assert.ok(emitted(stop2.splits) > emitted(stop1.splits), 'the job read on at parallelism 3');
    assert.ok(emitted(stop2.splits) < WORDS, 'the input ended before the second stop: make it larger');
    t.diagnostic(`words read: ${emitted(mid.splits)} at the mid-run savepoint, ${emitted(stop1.splits)} at the stop at p2, ${emitted(stop2.splits)} at the stop at p3, of ${WORDS}`);

    // Moved elsewhere, then parallelism 1 without a rate limit, to the end.
    const moved = join(root, 'moved', 'my-savepoint');
    mkdirSync(join(root, 'moved'));
    renameSync(secondStop, moved);
    const third = run([WORDCOUNT, '-p', '1', '--task-managers', '2', '-s', moved, ...job()]);
    assert.equal(await third.finished(), 0, third.tail());
    assert.ok(third.lines.includes(`restored from savepoint ${stop2.checkpointId}: ${moved}`), third.tail());
    const diff = diffSortedLines(readCommittedLines(out), expectedRunningCounts(wordCounts(SEED, WORDS)));
    assert.equal(diff, undefined, `the committed output is not exactly w\\t1..w\\tn for every word: ${diff}`);
  });

  test('weir savepoint --dispose removes a savepoint, and refuses what is not one', async () => {
    assert.ok(midRun && firstStop, 'the previous test made the savepoints');
    const notWeir = join(root, 'not-weir');
    mkdirSync(notWeir);
    writeFileSync(join(notWeir, '_metadata'), 'something else entirely\n');
    const aFile = committedFiles(out)[0]!;
    const refused: Array<[string, RegExp]> = [
      [out, /no _metadata here: not a complete checkpoint or savepoint/],
      [aFile, /not a directory/],
      [notWeir, /not a weir _metadata file/],
    ];
    const [byDir, byMetadata, ...refusals] = await Promise.all([
      weir(['savepoint', '--dispose', midRun], env),
      weir(['savepoint', '--dispose', join(firstStop, '_metadata')], env),
      ...refused.map(([p]) => weir(['savepoint', '--dispose', p], env)),
    ]);
    assert.equal(byDir.code, 0, byDir.stderr);
    assert.match(byDir.stdout, new RegExp(`^Disposed savepoint \\d+ of job [0-9a-f]{32}: ${midRun}$`, 'm'));
    assert.equal(existsSync(midRun), false, 'the savepoint directory is gone');
    assert.equal(byMetadata.code, 0, byMetadata.stderr);
    assert.equal(existsSync(firstStop), false, 'disposed through its _metadata path');
    refusals.forEach((r, i) => {
      const [path, why] = refused[i]!;
      assert.equal(r.code, 2, `refuses ${path}: ${r.stdout} ${r.stderr}`);
      assert.match(r.stderr, /^weir: /);
      assert.match(r.stderr, why);
      assert.equal(r.stdout, '');
    });
    assert.ok(existsSync(aFile) && existsSync(join(notWeir, '_metadata')) && readdirSync(out).length > 0, 'nothing refused was removed');
  });
});
