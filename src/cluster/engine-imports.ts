import { register } from 'node:module';
import { hostname } from 'node:os';
import { RUNNING_FROM_SOURCES } from '../coordinator/worker-bundle.ts';

/** What engine-imports.mjs needs to resolve `weir-stream` to this process's engine. */
export interface EngineImportsData {
  readonly engine: string;
  readonly ext: 'ts' | 'js';
  readonly host: string;
}

export const ENGINE_IMPORTS_HOOK = new URL('./engine-imports.mjs', import.meta.url).href;

export function engineImportsData(): EngineImportsData {
  return { engine: new URL('../', import.meta.url).href, ext: RUNNING_FROM_SOURCES ? 'ts' : 'js', host: hostname() };
}

let registered = false;

/** Registers the hooks in this thread (once): job bundles loaded here then use this engine. */
export function registerEngineImports(): void {
  if (registered) return;
  registered = true;
  register(ENGINE_IMPORTS_HOOK, { data: engineImportsData() });
}
