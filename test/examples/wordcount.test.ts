// Word count, the seed's example: its output must equal an independent count of the same input,
// at every parallelism, in this thread and on worker-thread TaskManagers.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { executeJob } from '../../src/index.ts';
import { WordGenerator } from '../../src/connectors/datagen/index.ts';
import { committedFiles } from '../../src/connectors/file/index.ts';
import wordcountCollect, { type WordCount } from '../fixtures/jobs/wordcount-collect.ts';
import { generateText, runCollecting, uniqueId, writeText } from '../fixtures/helpers.ts';
import { makeTempDir, removeDir } from '../fixtures/recovery-helpers.ts';

const EXAMPLE = fileURLToPath(new URL('../../examples/wordcount.ts', import.meta.url));
const FIXTURE = fileURLToPath(new URL('../fixtures/jobs/wordcount-collect.ts', import.meta.url));

/** TaskManagers for a worker run: one per subtask up to 3; at 4 two, so each hosts two subtasks. */
const taskManagersFor = (p: number) => (p === 4 ? 2 : p);

/**
 * The rolling sum emits a word's running count after each occurrence: for a word seen n times
 * the outputs must be exactly 1..n, each once (in that order when `ordered`).
 */
function checkRunningCounts(pairs: Iterable<readonly [string, number]>, expected: ReadonlyMap<string, number>, ordered: boolean): void {
  const seen = new Map<string, number[]>();
  let total = 0;
  for (const [word, count] of pairs) {
    let list = seen.get(word);
    if (!list) seen.set(word, (list = []));
    list.push(count);
    total++;
  }
  const problems: string[] = [];
  for (const [word, n] of expected) {
    const got = seen.get(word) ?? [];
    const check = ordered ? got : [...got].sort((a, b) => a - b);
    if (check.length !== n || check.some((c, i) => c !== i + 1)) {
      problems.push(`'${word}' occurs ${n} times, got ${check.length} outputs: ${check.slice(0, 8).join(',')}${check.length > 8 ? ',...' : ''}`);
    }
  }
  for (const word of seen.keys()) if (!expected.has(word)) problems.push(`'${word}' is not in the input`);
  assert.deepEqual(problems.slice(0, 10), [], `${problems.length} words are wrong`);
  const words = [...expected.values()].reduce((a, b) => a + b, 0);
  assert.equal(total, words);
}

describe('word count', { timeout: 120_000 }, () => {
  const dir = makeTempDir('wordcount');
  const input = join(dir, 'input.txt');
  // A few hundred KB: the text source cuts it into several byte-range splits at parallelism > 1.
  const { text, counts } = generateText(20240611, 320 * 1024);

  before(() => writeText(input, text));
  after(() => removeDir(dir));

  test('the generated input is what the independent count says', () => {
    // Guards the helper itself: a plain split of the text gives the same count.
    const again = new Map<string, number>();
    for (const w of text.split(/\s+/)) if (w !== '') again.set(w, (again.get(w) ?? 0) + 1);
    assert.deepEqual(again, counts);
    assert.ok(counts.size > 300, 'a vocabulary of some size');
    assert.ok(Buffer.byteLength(text) > 300 * 1024);
  });

  async function runCollect(args: string[], parallelism: number, taskManagers: number): Promise<WordCount[]> {
    const id = uniqueId('wordcount');
    const { result, records } = await runCollecting<WordCount>(id, () =>
      executeJob({
        job: taskManagers > 0 ? FIXTURE : wordcountCollect,
        args: [...args, '--collect-id', id],
        config: { 'parallelism.default': parallelism },
        taskManagers,
      }),
    );
    assert.equal(result.status, 'FINISHED', result.error?.message);
    return records;
  }

  for (const p of [1, 2, 3, 4]) {
    test(`text file input, parallelism ${p}, in this thread`, async () => {
      const records = await runCollect(['--input', input], p, 0);
      checkRunningCounts(records.map((r) => [r.word, r.count] as const), counts, true);
    });
  }

  for (const p of [1, 2, 3, 4]) {
    const tms = taskManagersFor(p);
    test(`text file input, parallelism ${p}, ${tms} worker TaskManager(s)`, async () => {
      const records = await runCollect(['--input', input], p, tms);
      checkRunningCounts(records.map((r) => [r.word, r.count] as const), counts, true);
    });
  }

  test('DataGen.words input matches a hand-written loop over the same positions', async () => {
    const n = 30_000;
    const seed = 99;
    const gen = new WordGenerator(seed);
    const expected = new Map<string, number>();
    for (let i = 0; i < n; i++) {
      const w = gen.wordAt(i);
      expected.set(w, (expected.get(w) ?? 0) + 1);
    }
    const inThread = await runCollect(['--words', String(n), '--seed', String(seed)], 3, 0);
    checkRunningCounts(inThread.map((r) => [r.word, r.count] as const), expected, true);
    const onWorkers = await runCollect(['--words', String(n), '--seed', String(seed)], 2, 2);
    checkRunningCounts(onWorkers.map((r) => [r.word, r.count] as const), expected, true);
  });

  describe('examples/wordcount.ts with committed file output', () => {
    for (const p of [1, 2, 3, 4]) {
      for (const taskManagers of [0, taskManagersFor(p)]) {
        const where = taskManagers === 0 ? 'in this thread' : `${taskManagers} worker TaskManager(s)`;
        test(`parallelism ${p}, ${where}`, async () => {
          const out = join(dir, `out-p${p}-tm${taskManagers}`);
          const result = await executeJob({
            job: EXAMPLE,
            args: ['--input', input, '--output', out, '--checkpoint-interval', '100'],
            // A broken run fails at once instead of restarting for ever (the example checkpoints,
            // which makes the default restart strategy retry without limit).
            config: { 'parallelism.default': p, 'restart-strategy.type': 'none' },
            taskManagers,
          });
          assert.equal(result.status, 'FINISHED', result.error?.message);
          const files = committedFiles(out);
          assert.ok(files.length > 0, 'some output was committed');
          const pairs: Array<[string, number]> = [];
          for (const file of files) {
            for (const line of readFileSync(file, 'utf8').split('\n')) {
              if (line === '') continue;
              const tab = line.lastIndexOf('\t');
              assert.ok(tab > 0, `a line 'word<TAB>count': ${JSON.stringify(line)}`);
              pairs.push([line.slice(0, tab), Number(line.slice(tab + 1))]);
            }
          }
          checkRunningCounts(pairs, counts, false);
          // A finished job leaves no uncommitted (hidden) files behind.
          assert.deepEqual(readdirSync(out).filter((n) => n.startsWith('.')), []);
        });
      }
    }
  });
});
