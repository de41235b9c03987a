// Scenario `state-access`: point reads and writes per second of the lmdb backend against the heap
// backend, on the same keyed workload (issue 29's "point reads and writes" figure).
//
// Per backend, one keyed state backend over every key group (what a p1 subtask holds), one
// ValueState<number>, K keys loaded first (--keys, default 1M). Then, timed, each at least
// --seconds (default 2) of:
//   read          setCurrentKey(k) + value()
//   write         setCurrentKey(k) + update(n)
//   read+write    setCurrentKey(k) + update(value() + 1)   (what a keyed sum does per record)
// with k drawn uniformly over all K keys and over a hot 1% of them (the keyed workload of the
// `state` scenario), a seeded sequence the same for both backends. The lmdb backend's writes go
// to its cache and reach the store when entries leave it or at a snapshot: every write phase ends
// with a snapshot() (what the next checkpoint does first), its time counted in the phase.
// The backends run one after the other in rotating order, each in a fresh temporary directory.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ValueStateDescriptor } from '../../src/index.ts';
import { createStateBackend } from '../../src/state/create-state-backend.ts';
import type { KeyedStateBackend } from '../../src/state/keyed-state-backend.ts';
import { fmtMs, fmtNumber, fmtRatio, intFlag, median, settle, type Scenario, type ScenarioOptions, type ScenarioResult } from '../harness.ts';

type Backend = 'heap' | 'lmdb';
type Operation = 'read' | 'write' | 'read+write';
type Spread = 'uniform' | 'hot 1%';
const OPERATIONS: readonly Operation[] = ['read', 'write', 'read+write'];
const SPREADS: readonly Spread[] = ['uniform', 'hot 1%'];
const DEFAULT_KEYS = 1_000_000;
const BATCH = 4096;

interface PhaseSample {
  readonly backend: Backend;
  readonly operation: Operation;
  readonly spread: Spread;
  readonly opsPerSecond: number;
}

/** A seeded sequence of keys: uniform over 0..keys-1, or over the first 1% of them spread by a hash. */
function keySequence(keys: number, spread: Spread, seed: number): () => number {
  const range = spread === 'uniform' ? keys : Math.max(1, Math.floor(keys / 100));
  const stride = spread === 'uniform' ? 1 : Math.floor(keys / range);
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return ((x >>> 0) % range) * stride;
  };
}

function openBackend(type: Backend, dir: string, cacheEntries: number): KeyedStateBackend {
  const factory = createStateBackend({ 'state.backend.type': type, 'state.backend.lmdb.localdir': dir, 'state.backend.lmdb.cache-entries': cacheEntries, 'state.backend.lmdb.snapshot-thread': true });
  return factory.createKeyedStateBackend({ jobId: 'bench', uid: 'access', subtask: 0, attempt: 0, keyGroupRange: { start: 0, end: 127 }, maxParallelism: 128, describe: () => 'the state-access benchmark' });
}

/** Writes reach the lmdb store here (a checkpoint's first step); the heap backend only marks a version. */
function flush(backend: KeyedStateBackend): void {
  for (const t of backend.snapshot().tables) t.snapshot.release();
}

function runPhase(backend: KeyedStateBackend, operation: Operation, next: () => number, minMs: number): number {
  const state = backend.getValueState(new ValueStateDescriptor<number>('v', { defaultValue: 0 }));
  let ops = 0;
  let sum = 0;
  const start = performance.now();
  do {
    for (let i = 0; i < BATCH; i++) {
      backend.setCurrentKey(next());
      if (operation === 'read') sum += state.value() ?? 0;
      else if (operation === 'write') state.update(i);
      else state.update((state.value() ?? 0) + 1);
    }
    ops += BATCH;
  } while (performance.now() - start < minMs);
  if (operation !== 'read') flush(backend);
  const ms = performance.now() - start;
  if (operation === 'read' && !(sum >= 0)) throw new Error('reads gave no numbers');
  return (ops * 1000) / ms;
}

async function runBackend(type: Backend, keys: number, minMs: number, cacheEntries: number, seed: number, log: (line: string) => void): Promise<PhaseSample[]> {
  await settle();
  const dir = mkdtempSync(join(tmpdir(), 'weir-bench-state-access-'));
  const backend = openBackend(type, dir, cacheEntries);
  try {
    const state = backend.getValueState(new ValueStateDescriptor<number>('v', { defaultValue: 0 }));
    const loadStart = performance.now();
    for (let k = 0; k < keys; k++) {
      backend.setCurrentKey(k);
      state.update(1);
    }
    flush(backend);
    log(`  ${type}: ${fmtNumber(keys)} keys loaded in ${fmtMs(performance.now() - loadStart)}`);
    const samples: PhaseSample[] = [];
    for (const spread of SPREADS) {
      for (const operation of OPERATIONS) {
        const opsPerSecond = runPhase(backend, operation, keySequence(keys, spread, seed), minMs);
        samples.push({ backend: type, operation, spread, opsPerSecond });
        log(`  ${type} ${operation.padEnd(10)} ${spread.padEnd(7)} ${fmtNumber(opsPerSecond).padStart(12)} ops/s`);
      }
    }
    return samples;
  } finally {
    backend.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export const stateAccess: Scenario = {
  name: 'state-access',
  description: 'point reads and writes per second of the lmdb backend against the heap backend, one ValueState, uniform and hot-1% keys',
  flags: { '--keys N': `keys loaded first (default ${fmtNumber(DEFAULT_KEYS)})`, '--seconds N': 'least time per phase (default 2)', '--cache-entries N': 'state.backend.lmdb.cache-entries (default: the config default, 50000)' },
  defaultRuns: 2,
  async run(options: ScenarioOptions): Promise<ScenarioResult> {
    const keys = intFlag(options, 'keys', DEFAULT_KEYS);
    const minMs = 1000 * intFlag(options, 'seconds', 2);
    const cacheEntries = intFlag(options, 'cache-entries', 50_000, 16);
    const samples: PhaseSample[] = [];
    const backends: Backend[] = ['heap', 'lmdb'];
    for (let run = 0; run < options.runs; run++) {
      options.log(`run ${run + 1}/${options.runs}`);
      for (let b = 0; b < backends.length; b++) samples.push(...(await runBackend(backends[(b + run) % 2]!, keys, minMs, cacheEntries, 0x5eed + run, options.log)));
    }
    const rate = (backend: Backend, operation: Operation, spread: Spread) => median(samples.filter((s) => s.backend === backend && s.operation === operation && s.spread === spread).map((s) => s.opsPerSecond));
    const rows = SPREADS.flatMap((spread) =>
      OPERATIONS.map((operation) => {
        const heap = rate('heap', operation, spread);
        const lmdb = rate('lmdb', operation, spread);
        return [operation, spread, fmtNumber(heap), fmtNumber(lmdb), fmtRatio(lmdb / heap)];
      }),
    );
    return {
      table: { columns: ['operation', 'keys drawn', 'heap ops/s', 'lmdb ops/s', 'lmdb / heap'], rows },
      notes: [
        `${fmtNumber(keys)} keys of one ValueState<number> over 128 key groups; lmdb cache ${fmtNumber(cacheEntries)} entries; medians of ${options.runs} runs, each phase at least ${minMs / 1000} s.`,
        'Write phases end with a snapshot() that puts the lmdb cache\'s dirty entries into the store (a checkpoint\'s first step), counted in the phase.',
      ],
      data: { keys, minMs, cacheEntries, samples },
    };
  },
};
