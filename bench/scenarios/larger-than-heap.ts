// Scenario `larger-than-heap`: issue 29's must-show. A keyed job whose TaskManager runs with
// --max-old-space-size=256 holds at least 3 GB of keyed state on the lmdb backend, checkpoints
// (incremental), is SIGKILLed, and recovers with exact results.
//
//   1. `weir run test/fixtures/jobs/large-keyed-state.ts` in a child process (NODE_OPTIONS
//      --max-old-space-size=--heap-mb, V8's flag, so every thread of it: the in-process
//      TaskManagers too), state.backend.type lmdb, incremental checkpoints every
//      --checkpoint-interval ms. Phase 1 writes --keys values of --value-bytes bytes each.
//   2. Once a checkpoint that completed holds at least --kill-at bytes of state (its log line's
//      stateBytes), the process is SIGKILLed. The restored run goes on from there (the rest of
//      phase 1, then phase 2; the sink's counts are in the checkpoint too).
//   3. `weir run -s <its newest chk-N>`: restored, run to the end; its tally must be every key
//      ok, none bad (a value lost, changed or written twice is bad).
//
// Printed: the heap limit, the state size of the checkpoint restored from, each checkpoint's
// state size and the bytes its files took (incremental: a delta or a new base), time of each
// phase, the restore's duration, peak RSS of each process, the tally.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { BENCH_DIR, fmtNumber, intFlag, type Scenario, type ScenarioOptions, type ScenarioResult } from '../harness.ts';

const WEIR = join(BENCH_DIR, '..', 'bin', 'weir.mjs');
const JOB = join(BENCH_DIR, '..', 'test', 'fixtures', 'jobs', 'large-keyed-state.ts');
const GiB = 2 ** 30;

interface LoggedCheckpoint {
  readonly id: number;
  readonly stateBytes: number;
  readonly durationMs: number;
  readonly at: number;
}

interface Run {
  readonly child: ChildProcess;
  readonly checkpoints: LoggedCheckpoint[];
  readonly lines: string[];
  jobId: string | undefined;
  restoredAt: number;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves with the first logged checkpoint `pick` accepts. */
  until(pick: (c: LoggedCheckpoint) => boolean): Promise<LoggedCheckpoint>;
}

function startRun(dir: string, o: { keys: number; valueBytes: number; heapMb: number; intervalMs: number; cacheEntries: number }, output: string, from?: string): Run {
  const args = [
    WEIR, 'run', JOB,
    '-D', 'rest.port=0',
    '-D', 'state.backend.type=lmdb',
    '-D', `state.backend.lmdb.cache-entries=${o.cacheEntries}`,
    '-D', `state.backend.lmdb.localdir=${join(dir, 'local')}`,
    '-D', `execution.checkpointing.dir=${join(dir, 'checkpoints')}`,
    '-D', `execution.checkpointing.interval=${o.intervalMs} ms`,
    '-D', 'execution.checkpointing.incremental=true',
    '-D', 'restart-strategy.type=none',
    ...(from !== undefined ? ['-s', from] : []),
    '--', '--keys', String(o.keys), '--value-bytes', String(o.valueBytes), '--output', output,
  ];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_OPTIONS: `--max-old-space-size=${o.heapMb}` } });
  const waiters = new Set<() => void>();
  const run: Run = {
    child,
    checkpoints: [],
    lines: [],
    jobId: undefined,
    restoredAt: 0,
    exited: new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal }))),
    until: (pick) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const c = run.checkpoints.find(pick);
          if (c !== undefined) {
            waiters.delete(check);
            resolve(c);
          }
        };
        waiters.add(check);
        void run.exited.then(() => {
          if (waiters.delete(check)) reject(new Error(`weir exited before the checkpoint awaited:\n${run.lines.slice(-20).join('\n')}`));
        });
        check();
      }),
  };
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (d: string) => {
    run.jobId ??= /Job ID: ([0-9a-f]{32})/.exec(d)?.[1];
  });
  createInterface({ input: child.stderr! }).on('line', (line) => {
    run.lines.push(line);
    if (run.lines.length > 200) run.lines.shift();
    if (line.startsWith('restored from checkpoint ')) run.restoredAt = performance.now();
    if (!line.startsWith('{')) return;
    let entry: Record<string, unknown>;
    try {
      entry = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return;
    }
    if (typeof entry.msg === 'string' && entry.msg.startsWith('completed checkpoint ')) {
      run.checkpoints.push({ id: entry.checkpointId as number, stateBytes: entry.stateBytes as number, durationMs: entry.durationMs as number, at: performance.now() });
      for (const w of [...waiters]) w();
    }
  });
  return run;
}

function dirBytes(dir: string): number {
  if (!existsSync(dir)) return 0;
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .reduce((n, d) => n + statSync(join(d.parentPath, d.name)).size, 0);
}

/** The job's newest chk-N with its _metadata, and the bytes each checkpoint's own files took (its shared files, by name). */
function checkpointFiles(jobDir: string): { newest: string; writtenBy: Map<number, number> } {
  const chks = readdirSync(jobDir)
    .map((n) => /^chk-(\d+)$/.exec(n))
    .filter((m): m is RegExpExecArray => m !== null && existsSync(join(jobDir, m[0], '_metadata')))
    .sort((a, b) => Number(b[1]) - Number(a[1]));
  if (chks.length === 0) throw new Error(`no complete checkpoint in ${jobDir}`);
  const writtenBy = new Map<number, number>();
  const shared = join(jobDir, 'shared');
  if (existsSync(shared)) {
    for (const f of readdirSync(shared)) {
      const id = /-c(\d+)-(full|delta)$/.exec(f)?.[1];
      if (id !== undefined) writtenBy.set(Number(id), (writtenBy.get(Number(id)) ?? 0) + statSync(join(shared, f)).size);
    }
  }
  return { newest: join(jobDir, chks[0]![0]), writtenBy };
}

const mb = (n: number) => `${(n / 2 ** 20).toFixed(0)} MiB`;

export const largerThanHeap: Scenario = {
  name: 'larger-than-heap',
  description: 'issue 29: >= 3 GB of lmdb keyed state in a --max-old-space-size=256 TaskManager, incremental checkpoints, SIGKILL, restore, every value checked',
  flags: {
    '--keys N': 'keys (default 4,500,000)',
    '--value-bytes N': 'bytes of each value (default 1000)',
    '--kill-at BYTES': 'SIGKILL once a completed checkpoint holds this much state (default 3 GiB)',
    '--heap-mb N': 'the TaskManager process\'s --max-old-space-size (default 256)',
    '--checkpoint-interval MS': 'default 10000',
    '--cache-entries N': 'state.backend.lmdb.cache-entries (default 10000)',
  },
  defaultRuns: 1,
  async run(options: ScenarioOptions): Promise<ScenarioResult> {
    const o = {
      keys: intFlag(options, 'keys', 4_500_000),
      valueBytes: intFlag(options, 'value-bytes', 1000),
      heapMb: intFlag(options, 'heap-mb', 256),
      intervalMs: intFlag(options, 'checkpoint-interval', 10_000),
      cacheEntries: intFlag(options, 'cache-entries', 10_000),
    };
    const killAt = intFlag(options, 'kill-at', 3 * GiB);
    const dir = mkdtempSync(join(tmpdir(), 'weir-bench-larger-than-heap-'));
    const log = options.log;
    try {
      // 1-2: load until a checkpoint holds killAt bytes, then SIGKILL.
      const t0 = performance.now();
      const first = startRun(dir, o, join(dir, 'first.json'));
      const target = await first.until((c) => c.stateBytes >= killAt);
      const killedAt = performance.now();
      first.child.kill('SIGKILL');
      const firstExit = await first.exited;
      if (firstExit.signal !== 'SIGKILL') throw new Error(`the first run ended ${JSON.stringify(firstExit)} before it was killed:\n${first.lines.slice(-20).join('\n')}`);
      if (existsSync(join(dir, 'first.json'))) throw new Error('the first run reached the end of its input before the kill: make --keys larger');
      // (The sink writes its file at the end of input only.)
      for (const c of first.checkpoints) log(`checkpoint ${c.id}: state ${mb(c.stateBytes)}, took ${fmtNumber(c.durationMs)} ms, completed at ${((c.at - t0) / 1000).toFixed(1)} s`);
      log(`SIGKILLed at ${((killedAt - t0) / 1000).toFixed(1)} s, after checkpoint ${target.id} (${mb(target.stateBytes)} of state)`);
      const jobDir = join(dir, 'checkpoints', first.jobId!);
      const files = checkpointFiles(jobDir);
      const restoredId = Number(/chk-(\d+)$/.exec(files.newest)![1]);
      const restoredCheckpoint = first.checkpoints.find((c) => c.id === restoredId);
      // 3: restore and run to the end.
      const output = join(dir, 'second.json');
      const t1 = performance.now();
      const second = startRun(dir, o, output, files.newest);
      const secondExit = await second.exited;
      const t2 = performance.now();
      if (secondExit.code !== 0) throw new Error(`the restored run ended ${JSON.stringify(secondExit)}:\n${second.lines.slice(-30).join('\n')}`);
      const tally = JSON.parse(readFileSync(output, 'utf8')) as { ok: number; bad: number; firstBad: string | null };
      const exact = tally.ok === o.keys && tally.bad === 0;
      const checkpointRows = first.checkpoints.map((c) => [String(c.id), mb(c.stateBytes), files.writtenBy.has(c.id) ? mb(files.writtenBy.get(c.id)!) : '-', `${fmtNumber(c.durationMs)} ms`]);
      const rows = [
        ['heap limit (--max-old-space-size)', `${o.heapMb} MiB`],
        ['keys x value bytes', `${fmtNumber(o.keys)} x ${fmtNumber(o.valueBytes)} B`],
        ['state of the checkpoint restored from', `chk-${restoredId}: ${restoredCheckpoint ? `${mb(restoredCheckpoint.stateBytes)} (${(restoredCheckpoint.stateBytes / 1e9).toFixed(2)} GB)` : '?'}`],
        ['state / heap limit', restoredCheckpoint ? `${(restoredCheckpoint.stateBytes / (o.heapMb * 2 ** 20)).toFixed(1)}x` : '?'],
        ['checkpoint files on disk when killed', mb(dirBytes(jobDir))],
        ['first run: start to SIGKILL', `${((killedAt - t0) / 1000).toFixed(1)} s`],
        ['restored run: start to restored', second.restoredAt > 0 ? `${((second.restoredAt - t1) / 1000).toFixed(1)} s` : '?'],
        ['restored run: start to end', `${((t2 - t1) / 1000).toFixed(1)} s`],
        ['tally of the restored run', `ok ${fmtNumber(tally.ok)}, bad ${fmtNumber(tally.bad)}${tally.firstBad ? ` (first: ${tally.firstBad})` : ''}`],
        ['exact (every key ok once, none bad)', exact ? 'yes' : 'NO'],
      ];
      return {
        table: { columns: ['figure', 'value'], rows },
        extraTables: [{ title: 'checkpoints of the killed run (files: what each wrote into shared/, a delta or a new base)', table: { columns: ['id', 'state', 'files', 'took'], rows: checkpointRows } }],
        notes: exact ? [] : ['the restored run did not check every key exactly: see the tally'],
        data: { ...o, killAt, restoredId, checkpoints: first.checkpoints, writtenBy: Object.fromEntries(files.writtenBy), tally, exact, secondRestoreMs: second.restoredAt - t1, secondTotalMs: t2 - t1 },
      };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
