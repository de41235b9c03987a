// The job module `weir pipeline FILE` runs (as `weir run` runs any job module): a pipeline file
// checked and built into a job. Its arguments: `--pipeline-file PATH` (the file, read where the
// job is built) or `--pipeline-base64=TEXT --pipeline-file PATH` (its text, base64, so a cluster
// that shares no filesystem with the client builds the same job; the path only names it).
import { Buffer } from 'node:buffer';
import { readFileSync } from 'node:fs';
import { defineJob } from '../api/define-job.ts';
import type { JobArgs } from '../api/job-args.ts';
import { PipelineCheckError } from './pipeline-problem.ts';
import { buildPipelineJob } from './pipeline-job-builder.ts';
import type { PipelineDefinition } from './pipeline-definition.ts';
import { checkPipelineText } from './pipeline-validator.ts';

export default defineJob((env, args) => buildPipelineJob(env, pipelineOfArgs(args)));

/** The checked pipeline the job's arguments name; throws PipelineCheckError with every problem. */
export function pipelineOfArgs(args: JobArgs): PipelineDefinition {
  const file = args.get('pipeline-file');
  const encoded = args.get('pipeline-base64');
  if (file === undefined) throw new TypeError('the pipeline job needs --pipeline-file PATH (weir pipeline FILE passes it)');
  const text = encoded !== undefined ? Buffer.from(encoded, 'base64').toString('utf8') : readFileSync(file, 'utf8');
  const { definition, problems } = checkPipelineText(file, text);
  if (!definition) throw new PipelineCheckError(file, problems);
  return definition;
}

/** The job arguments for a pipeline file: its path and its text (so a cluster builds it without the file). */
export function pipelineJobArgs(file: string, text: string): string[] {
  return ['--pipeline-file', file, `--pipeline-base64=${Buffer.from(text, 'utf8').toString('base64')}`];
}

/** This module's path: what `weir pipeline` runs. */
export const PIPELINE_JOB_MODULE = new URL(import.meta.url).pathname;
