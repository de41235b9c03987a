import { readFileSync, rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CheckpointMetadata } from '../checkpoint/checkpoint-metadata.ts';
import { WordGenerator } from '../connectors/datagen/word-generator.ts';
import type { DataGenSplit } from '../connectors/datagen/datagen-source.ts';
import { committedFiles } from '../connectors/file/file-sink.ts';
import { createJobMaster } from '../coordinator/execute-job.ts';
import { createLogger } from '../log/logger.ts';

const EXAMPLE = fileURLToPath(new URL('../../examples/wordcount.ts', import.meta.url));
const WORDS = 60_000;
const SEED = 7;

/**
 * `npm start`: the seed's story on its own example. Word count at parallelism 2 on two worker
 * TaskManagers with exactly-once checkpoints; a failure is injected in Sum; the job restarts,
 * restores the latest checkpoint, the sources seek back to its offsets and replay; the committed
 * output is then checked against a count of the same input made without any failure.
 */
export async function demoCommand(): Promise<number> {
  const root = await mkdtemp(join(tmpdir(), 'weir-demo-'));
  const out = (s: string) => process.stdout.write(s + '\n');
  try {
    out('weir demo: the seed\'s word count, Source -> Map -> keyBy -> Sum');
    out(`  ${WORDS.toLocaleString('en-US')} generated words, parallelism 2 on 2 worker TaskManagers, exactly-once checkpoints every 300 ms,`);
    out('  committed to files by a two-phase-commit sink; one failure will be injected into Sum.\n');
    const master = await createJobMaster({
      job: EXAMPLE,
      args: ['--words', String(WORDS), '--seed', String(SEED), '--rate', '20000', '--output', join(root, 'output'), '--checkpoint-interval', '300'],
      config: {
        'parallelism.default': 2,
        'execution.checkpointing.dir': join(root, 'checkpoints'),
        'restart-strategy.type': 'fixed-delay',
        'restart-strategy.fixed-delay.attempts': 3,
        'restart-strategy.fixed-delay.delay': '500 ms',
      },
      taskManagers: 2,
      faults: { failures: 1, seed: 3, vertexNameContains: 'Sum', minRecords: 12_000, maxRecords: 16_000 },
      log: createLogger({ level: 'error' }),
      listener: {
        onCheckpointCompleted: (c) =>
          out(
            `checkpoint ${String(c.id).padStart(2)}  completed in ${String(c.completedAt - c.triggeredAt).padStart(3)} ms   state ${(c.stateBytes / 1024).toFixed(1).padStart(5)} kB   source offsets ${offsets(c.metadata)}`,
          ),
        onRestart: ({ cause, delayMs }) => out(`\n!! ${cause.message}\n   the job fails over; restarting in ${delayMs} ms`),
        onRestored: ({ checkpointId, path, sourcePositions }) => {
          const seeks = Object.entries(sourcePositions)
            .map(([task, splits]) => `${task} -> ${emitted(splits as DataGenSplit[]).toLocaleString('en-US')}`)
            .join(', ');
          out(`   restored Sum's state from checkpoint ${checkpointId} (${path})`);
          out(`   sources seek to the checkpoint's offsets and replay from there: ${seeks}\n`);
        },
      },
    });
    out(`Job ID: ${master.jobId}\n`);
    const result = await master.run();
    out(`\njob ${result.status} in ${(result.durationMs / 1000).toFixed(1)} s after ${result.restarts} restart${result.restarts === 1 ? '' : 's'}`);
    if (result.status !== 'FINISHED') {
      out(`cause: ${result.error?.message}`);
      return 1;
    }
    return verify(join(root, 'output'), out) ? 0 : 1;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

function emitted(splits: readonly DataGenSplit[]): number {
  return splits.reduce((n, s) => n + Math.max(0, Math.ceil((Math.min(s.next, s.end ?? s.next) - s.lane) / s.lanes)), 0);
}

function offsets(metadata: CheckpointMetadata): string {
  const source = metadata.operators.find((o) => o.uid === 'source');
  if (!source) return '';
  return source.subtasks
    .map((s) => `[${s.subtask + 1}/${source.parallelism}] ${emitted((s.operator['_source-splits']?.values ?? []) as DataGenSplit[]).toLocaleString('en-US').padStart(6)}`)
    .join('  ');
}

/** The committed output against a count of the same input made without the engine. */
function verify(outputDir: string, out: (s: string) => void): boolean {
  const expected = new Map<string, number>();
  const gen = new WordGenerator(SEED);
  for (let i = 0; i < WORDS; i++) {
    const w = gen.wordAt(i);
    expected.set(w, (expected.get(w) ?? 0) + 1);
  }
  const seen = new Map<string, number[]>();
  for (const file of committedFiles(outputDir)) {
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (line === '') continue;
      const [word, count] = line.split('\t') as [string, string];
      const list = seen.get(word) ?? [];
      list.push(Number(count));
      seen.set(word, list);
    }
  }
  const top = [...expected].sort((a, b) => b[1] - a[1]).slice(0, 8);
  out('\nfinal counts (top 8 of ' + expected.size + ' words):');
  for (const [w, n] of top) out(`  ${w.padEnd(10)} ${String(Math.max(...(seen.get(w) ?? [0]))).padStart(6)}   (expected ${n})`);
  const problems: string[] = [];
  for (const [w, n] of expected) {
    const got = (seen.get(w) ?? []).sort((a, b) => a - b);
    if (got.length !== n || got.some((c, i) => c !== i + 1)) problems.push(`${w}: expected updates 1..${n}, committed ${got.length} updates`);
  }
  for (const w of seen.keys()) if (!expected.has(w)) problems.push(`${w}: not in the input`);
  if (problems.length === 0) {
    out(`\nexactly-once: verified (${WORDS.toLocaleString('en-US')} words; every word's committed updates are exactly 1..n, none lost, none twice)`);
    return true;
  }
  out(`\nexactly-once: FAILED (${problems.length} words differ, e.g. ${problems.slice(0, 3).join('; ')})`);
  return false;
}
