import { createRequire } from 'node:module';
import type * as LmdbModule from 'lmdb';

export type Lmdb = typeof LmdbModule;

/** Loaded on first use, not by every TaskManager that imports the backend (heap jobs never need it). */
let native: Lmdb | undefined;

/**
 * Loads the native store through a dynamic import. A job bundle that carries its own copy of the
 * engine lives in a temporary directory, where a require next to the engine's file finds no
 * node_modules; the bundler resolves this import to the installed package's absolute path
 * (worker-bundle.ts), wherever the bundle is.
 */
export async function loadLmdb(): Promise<Lmdb> {
  if (native) return native;
  const m = (await import('lmdb')) as Lmdb & { default?: Lmdb };
  return (native = typeof m.open === 'function' ? m : m.default!);
}

/** The loaded store; outside a bundle (tests, tools) a require next to this file finds it as well. */
export function lmdbNative(): Lmdb {
  return (native ??= createRequire(import.meta.url)('lmdb') as Lmdb);
}
