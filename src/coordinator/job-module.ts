import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isJobDefinition, type JobDefinition } from '../api/define-job.ts';
import { JobModuleError } from '../api/job-module-error.ts';

/** Loads a job module (TypeScript or JavaScript) and returns its default export made with defineJob. */
export async function loadJobModule(path: string): Promise<{ definition: JobDefinition; modulePath: string }> {
  const modulePath = resolve(path);
  if (!existsSync(modulePath)) throw new JobModuleError(modulePath, 'file not found');
  let mod: { default?: unknown };
  try {
    mod = (await import(pathToFileURL(modulePath).href)) as { default?: unknown };
  } catch (e) {
    throw new JobModuleError(modulePath, `failed to load: ${(e as Error).message}`, e);
  }
  if (!isJobDefinition(mod.default)) {
    throw new JobModuleError(modulePath, 'its default export is not a job: write `export default defineJob((env, args) => { ... })`');
  }
  return { definition: mod.default, modulePath };
}
