import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkPipelineText } from '../pipeline/pipeline-validator.ts';
import { pipelineSummary } from '../pipeline/pipeline-summary.ts';
import { checkAgainstSource } from '../pipeline/source-check.ts';
import { pipelineJobArgs } from '../pipeline/pipeline-job.ts';
import { localClusterCommand } from './local-cluster.ts';
import { runCommand, type RunOptions } from './run-command.ts';
import { submitCommand, type SubmitOptions } from './submit-command.ts';

/** The job module a pipeline runs as (src/ under tsx, dist/ when installed). */
const PIPELINE_JOB = fileURLToPath(new URL(`../pipeline/pipeline-job${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url));

export interface PipelineOptions extends RunOptions {
  readonly check?: boolean;
  readonly jobmanager?: string;
  readonly detached?: boolean;
  readonly token?: string;
  readonly processes?: boolean;
}

/**
 * `weir pipeline FILE`: checks the file, then runs it as a job as `weir run` runs one (here, on a
 * local cluster with --processes, or on a cluster with -m), with the same progress view; the job
 * commands (stop, savepoint, cancel) and `-s` apply as to any job. `--check` only checks.
 * Exit codes: 0 a good file checked or a pipeline that finished, 1 a file with problems or a
 * pipeline that failed or was cancelled, 2 a usage error (an unreadable file).
 */
export async function pipelineCommand(file: string, o: PipelineOptions, out: (s: string) => void = (s) => process.stdout.write(s), err: (s: string) => void = (s) => process.stderr.write(s)): Promise<number> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    err(`weir: pipeline file ${file}: cannot read it: ${(e as Error).message}\n`);
    return 2;
  }
  const { definition, problems } = checkPipelineText(file, text);
  if (!definition) {
    err(problems.map((p) => `${p.message}\n`).join(''));
    err(`weir: ${file}: ${problems.length} problem${problems.length === 1 ? '' : 's'}\n`);
    return 1;
  }
  const source = await checkAgainstSource(definition);
  if (source.reached && source.problems.length > 0) {
    err(source.problems.map((p) => `${p.message}\n`).join(''));
    err(`weir: ${file}: ${source.problems.length} problem${source.problems.length === 1 ? '' : 's'} with the source's tables\n`);
    return 1;
  }
  if (o.check) {
    out(pipelineSummary(definition));
    out(source.reached ? `checked against the source: ${source.tables} captured table${source.tables === 1 ? '' : 's'}, every transform compiles\n` : `the source was not reached (${source.reason}): transforms checked without its columns\n`);
    return 0;
  }
  const args = pipelineJobArgs(resolve(file), text);
  if (o.jobmanager) return submitCommand(PIPELINE_JOB, args, o as SubmitOptions);
  if (o.processes) return localClusterCommand(PIPELINE_JOB, args, o as Parameters<typeof localClusterCommand>[2]);
  return runCommand(PIPELINE_JOB, args, o);
}
