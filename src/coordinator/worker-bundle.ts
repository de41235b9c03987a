import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire, isBuiltin } from 'node:module';
import { build, type Plugin } from 'esbuild';

const SRC = fileURLToPath(new URL('..', import.meta.url));

export interface WorkerBundle {
  /** The TaskManager thread's entry, as plain JavaScript. */
  readonly entry: string;
  /** The job module compiled into the same bundle (one copy of the engine for both). */
  readonly jobModule: string;
  dispose(): Promise<void>;
}

/**
 * `weir-stream` and `weir-stream/connectors/*` are this package's sources: bundled. Other packages stay outside
 * the bundle, imported by the absolute path they resolve to from the module that imports them, so
 * the bundle can live anywhere.
 */
const resolvePackages: Plugin = {
  name: 'weir-packages',
  setup(b) {
    b.onResolve({ filter: /^weir-stream(\/.*)?$/ }, (args) => {
      const sub = args.path.slice('weir-stream'.length);
      return { path: sub === '' ? join(SRC, 'index.ts') : join(SRC, sub, 'index.ts') };
    });
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (isBuiltin(args.path)) return { path: args.path, external: true };
      return { path: createRequire(args.importer).resolve(args.path), external: true };
    });
  },
};

/**
 * Compiles the worker entry and the job module into one JavaScript bundle, once per job, so
 * worker-thread TaskManagers start without a TypeScript loader of their own (which costs each
 * thread hundreds of milliseconds). Returns undefined when the job cannot be bundled; the workers
 * then compile on load instead.
 */
export async function bundleForWorkers(modulePath: string): Promise<WorkerBundle | undefined> {
  const outdir = await mkdtemp(join(tmpdir(), 'weir-bundle-'));
  try {
    await build({
      entryPoints: { 'task-manager': join(SRC, 'worker', 'task-manager-thread.ts'), job: modulePath },
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      outdir,
      outExtension: { '.js': '.mjs' },
      plugins: [resolvePackages],
      sourcemap: 'inline',
      logLevel: 'silent',
    });
  } catch {
    await rm(outdir, { recursive: true, force: true });
    return undefined;
  }
  return {
    entry: join(outdir, 'task-manager.mjs'),
    jobModule: join(outdir, 'job.mjs'),
    dispose: () => rm(outdir, { recursive: true, force: true }),
  };
}
