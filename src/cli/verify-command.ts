import { existsSync, readFileSync, rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { readSnapshot } from '../checkpoint/snapshot-reader.ts';
import { committedFiles } from '../connectors/file/file-sink.ts';
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
    const stateSame = await compareState(a.result, b.result, log);
    const outputSame = a.hasOutput ? compareOutput(a.output, b.output, log) : (log(`output: not compared (the job has no --${outputArg} argument)`), true);
    const identical = stateSame && outputSame && b.result.injectedFailures === failures;
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

async function compareState(a: JobResult, b: JobResult, log: (line: string) => void): Promise<boolean> {
  if (!a.latestCheckpoint || !b.latestCheckpoint) {
    log('state: not compared (no final checkpoint)');
    return false;
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
  if (diffs.length === 0) {
    log(`state: identical (${fa.size} keyed entries in ${sa.operators.filter((o) => o.keyed.length > 0).length} operators)`);
    return true;
  }
  log(`state: ${diffs.length} differences, e.g. ${diffs.slice(0, 5).join('; ')}`);
  return false;
}

function compareOutput(a: string, b: string, log: (line: string) => void): boolean {
  const read = (dir: string) => (existsSync(dir) ? committedFiles(dir).flatMap((f) => readFileSync(f, 'utf8').split('\n').filter((l) => l !== '')) : []);
  const la = read(a).sort();
  const lb = read(b).sort();
  const same = la.length === lb.length && la.every((l, i) => l === lb[i]);
  if (same) {
    log(`committed output: identical (${la.length} lines)`);
    return true;
  }
  const count = (xs: string[]) => xs.reduce((m, x) => m.set(x, (m.get(x) ?? 0) + 1), new Map<string, number>());
  const ca = count(la);
  const cb = count(lb);
  const diffs = [...new Set([...ca.keys(), ...cb.keys()])].filter((k) => ca.get(k) !== cb.get(k));
  log(`committed output: differs (${la.length} vs ${lb.length} lines; e.g. ${diffs.slice(0, 5).map((d) => `'${d}' x${ca.get(d) ?? 0} vs x${cb.get(d) ?? 0}`).join(', ')})`);
  return false;
}
