import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isJobDefinition, type JobDefinition } from '../api/define-job.ts';
import { JobModuleError } from '../api/job-module-error.ts';
import { compileJob, RUNNING_FROM_SOURCES, type CompiledJob } from './worker-bundle.ts';

export interface LoadedJobModule {
  readonly definition: JobDefinition;
  readonly modulePath: string;
  /** @internal The installed package runs the module compiled to one ES module (worker threads load the same file). */
  readonly compiled: CompiledJob | undefined;
}

/**
 * Loads a job module (TypeScript or JavaScript) and returns its default export made with
 * defineJob. From the repository the sources run under tsx; the installed package compiles the
 * module first, so TypeScript jobs load in any project, whatever its `"type"`.
 */
export async function loadJobModule(path: string): Promise<LoadedJobModule> {
  const modulePath = resolve(path);
  if (!existsSync(modulePath)) throw new JobModuleError(modulePath, 'file not found');
  let compiled: CompiledJob | undefined;
  let mod: { default?: unknown };
  try {
    if (!RUNNING_FROM_SOURCES) {
      // The compiled module carries its source map: its stacks name the user's file and line.
      process.setSourceMapsEnabled(true);
      compiled = await compileJob(modulePath);
    }
    mod = (await import(pathToFileURL(compiled?.path ?? modulePath).href)) as { default?: unknown };
  } catch (e) {
    await compiled?.discard();
    throw new JobModuleError(modulePath, `failed to load: ${(e as Error).message}`, e);
  }
  if (!isJobDefinition(mod.default)) {
    await compiled?.discard();
    throw new JobModuleError(modulePath, 'its default export is not a job: write `export default defineJob((env, args) => { ... })`');
  }
  return { definition: mod.default, modulePath, compiled };
}
