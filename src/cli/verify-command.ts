import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { readSnapshot } from '../checkpoint/snapshot-reader.ts';
import { createJobMaster } from '../coordinator/execute-job.ts';
import type { JobResult } from '../coordinator/job-master.ts';
import { createLogger } from '../log/logger.ts';
import { canonical } from './canonical.ts';
import { nonEmpty, parseDynamicProperties, readConfigFile } from './config-file.ts';
import { UsageError, wholeNumber } from './run-command.ts';

export interface VerifyOptions {
  readonly parallelism?: string;
  readonly taskManagers?: string;
  readonly failures?: string;
  readonly seed?: string;
  readonly outputArg?: string;
  readonly define?: string[];
  readonly config?: string;
  readonly keep?: boolean;
}

export interface VerifyReport {
  readonly identical: boolean;
  readonly lines: string[];
}

/**
 * `weir verify`: runs a job once without and once with injected failures and compares the final
 * keyed state of every operator and the committed output. A user's check that their own job is
 * exactly-once.
 */
export async function verifyCommand(job: string, jobArgs: readonly string[], o: VerifyOptions): Promise<number> {
  const report = await verifyJob(job, jobArgs, o, (line) => process.stdout.write(line + '\n'));
  return report.identical ? 0 : 1;
}

export async function verifyJob(job: string, jobArgs: readonly string[], o: VerifyOptions, say: (line: string) => void): Promise<VerifyReport> {
  const failures = wholeNumber(o.failures, '--failures', 3);
  const seed = wholeNumber(o.seed, '--seed', 1);
  const outputArg = o.outputArg ?? 'output';
  const root = await mkdtemp(join(tmpdir(), 'weir-verify-'));
  const lines: string[] = [];
  const log = (line: string) => {
    lines.push(line);
    say(line);
  };
  try {
    const run = async (name: string, withFailures: boolean) => {
      const args = replaceArg(jobArgs, outputArg, join(root, `${name}-output`));
      const master = await createJobMaster({
        job,
        args,
        config: {
          ...parseDynamicProperties(o.define ?? []),
          ...(o.parallelism !== undefined ? { 'parallelism.default': nonEmpty('-p', 'parallelism.default', o.parallelism) } : {}),
          'execution.checkpointing.dir': join(root, `${name}-checkpoints`),
          ...(withFailures ? { 'restart-strategy.type': 'fixed-delay', 'restart-strategy.fixed-delay.attempts': failures + 5, 'restart-strategy.fixed-delay.delay': '100 ms' } : {}),
        },
        ...(o.config ? { configFile: readConfigFile(o.config), configFilePath: resolve(o.config) } : {}),
        taskManagers: wholeNumber(o.taskManagers, '--task-managers', 0),
        retainCheckpointsOnFinish: true,
        log: createLogger({ level: 'error' }),
        ...(withFailures ? { faults: { failures, seed } } : {}),
      });
      if (!master.checkpoints.periodic) {
        throw new UsageError('weir verify needs checkpoints: the job does not enable them (set -D execution.checkpointing.interval=500)');
      }
      const result = await master.run();
      log(`${name}: ${result.status} in ${result.durationMs} ms${result.restarts ? `, ${result.restarts} restarts (${result.injectedFailures} injected failures)` : ''}`);
      if (result.status !== 'FINISHED') throw new Error(`the ${name} run did not finish: ${result.error?.message}`);
      return { result, output: join(root, `${name}-output`), hasOutput: args.includes(join(root, `${name}-output`)) };
    };
    const a = await run('failure-free run', false);
    const b = await run('run with failures', true);
    const state = await compareState(a.result, b.result, log);
    const outputSame = a.hasOutput ? compareOutput(a.output, b.output, log) : (log(`output: not compared (the job has no --${outputArg} argument)`), true);
    const comparedSomething = a.hasOutput || state.entries > 0;
    if (!comparedSomething) log(`nothing compared: no keyed state and no --${outputArg} argument`);
    const identical = state.same && outputSame && comparedSomething && b.result.injectedFailures === failures;
    if (b.result.injectedFailures !== failures) log(`only ${b.result.injectedFailures} of ${failures} injected failures happened`);
    log(identical ? 'exactly-once: verified' : 'exactly-once: NOT verified');
    return { identical, lines };
  } finally {
    if (!o.keep) rmSync(root, { recursive: true, force: true });
  }
}

function replaceArg(args: readonly string[], name: string, value: string): string[] {
  const out = [...args];
  const i = out.findIndex((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  if (i === -1) return out;
  if (out[i]!.includes('=')) out[i] = `--${name}=${value}`;
  else out[i + 1] = value;
  return out;
}

async function compareState(a: JobResult, b: JobResult, log: (line: string) => void): Promise<{ same: boolean; entries: number }> {
  if (!a.latestCheckpoint || !b.latestCheckpoint) {
    log('state: not compared (no final checkpoint)');
    return { same: false, entries: 0 };
  }
  const [sa, sb] = await Promise.all([readSnapshot(a.latestCheckpoint), readSnapshot(b.latestCheckpoint)]);
  const flatten = (snap: typeof sa) => {
    const m = new Map<string, string>();
    for (const op of snap.operators) {
      for (const st of op.keyed) for (const entries of st.entries.values()) for (const [k, v] of entries) m.set(`${op.uid}/${st.name}/${canonical(k)}`, canonical(v));
    }
    return m;
  };
  const fa = flatten(sa);
  const fb = flatten(sb);
  const diffs: string[] = [];
  for (const [k, v] of fa) if (fb.get(k) !== v) diffs.push(`${k}: ${v} vs ${fb.get(k) ?? 'missing'}`);
  for (const k of fb.keys()) if (!fa.has(k)) diffs.push(`${k}: missing vs ${fb.get(k)}`);
  if (diffs.length === 0 && fa.size === 0) {
    log('state: empty (no keyed state in either final checkpoint: only the output is compared)');
    return { same: true, entries: 0 };
  }
  if (diffs.length === 0) {
    log(`state: identical (${fa.size} keyed entries in ${sa.operators.filter((o) => o.keyed.length > 0).length} operators)`);
    return { same: true, entries: fa.size };
  }
  log(`state: ${diffs.length} differences, e.g. ${diffs.slice(0, 5).join('; ')}`);
  return { same: false, entries: fa.size };
}

/**
 * Every committed file under the output, recursively, grouped by its directory: a job may write
 * several outputs (`out/sums`, `out/late`) and each must match on its own. Hidden files are a
 * transactional sink's uncommitted ones; file names carry the run's job id, so lines are compared
 * per directory, not per file.
 */
export function committedOutput(root: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((x, y) => x.name.localeCompare(y.name))) {
      if (entry.name.startsWith('.')) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) {
        const key = relative(root, dir) || '.';
        const lines = out.get(key) ?? [];
        for (const line of readFileSync(path, 'utf8').split('\n')) if (line !== '') lines.push(line);
        out.set(key, lines);
      }
    }
  };
  if (existsSync(root)) walk(root);
  return out;
}

function compareOutput(a: string, b: string, log: (line: string) => void): boolean {
  const oa = committedOutput(a);
  const ob = committedOutput(b);
  const dirs = [...new Set([...oa.keys(), ...ob.keys()])].sort();
  let total = 0;
  let same = true;
  for (const dir of dirs) {
    const la = (oa.get(dir) ?? []).sort();
    const lb = (ob.get(dir) ?? []).sort();
    total += la.length + lb.length;
    const where = dir === '.' ? 'committed output' : `committed output ${dir}/`;
    if (la.length === lb.length && la.every((l, i) => l === lb[i])) {
      log(`${where}: identical (${la.length} lines)`);
      continue;
    }
    same = false;
    const count = (xs: string[]) => xs.reduce((m, x) => m.set(x, (m.get(x) ?? 0) + 1), new Map<string, number>());
    const ca = count(la);
    const cb = count(lb);
    const diffs = [...new Set([...ca.keys(), ...cb.keys()])].filter((k) => ca.get(k) !== cb.get(k));
    log(`${where}: differs (${la.length} vs ${lb.length} lines; e.g. ${diffs.slice(0, 5).map((d) => `'${d}' x${ca.get(d) ?? 0} vs x${cb.get(d) ?? 0}`).join(', ')})`);
  }
  if (total === 0) {
    // Nothing to compare proves nothing: an output written elsewhere, or none at all, must not pass.
    log(`committed output: nothing compared (no committed file under ${a} or ${b})`);
    return false;
  }
  return same;
}
