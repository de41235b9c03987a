import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire, isBuiltin } from 'node:module';
import { build, type Plugin } from 'esbuild';

/** The engine's own directory: `src/` in the repository (run under tsx), `dist/` in the package. */
const ENGINE = fileURLToPath(new URL('..', import.meta.url));

/** Whether the engine runs from its TypeScript sources (the repository) or the compiled package. */
export const RUNNING_FROM_SOURCES = import.meta.url.endsWith('.ts');

const ENGINE_EXTENSION = RUNNING_FROM_SOURCES ? 'ts' : 'js';

/** The file of `weir-stream` or `weir-stream/connectors/x` in the running engine. */
function engineFile(specifier: string): string {
  const sub = specifier.slice('weir-stream'.length);
  return sub === '' ? join(ENGINE, `index.${ENGINE_EXTENSION}`) : join(ENGINE, sub, `index.${ENGINE_EXTENSION}`);
}

/**
 * `weir-stream` imports go to the running engine's own files: inlined (`inline`, a bundle with its
 * own copy of the engine) or external by absolute path (the job uses the very modules the command
 * runs, so one instance of everything). Other packages stay outside the bundle, imported by the
 * absolute path they resolve to from the module that imports them, so the bundle can live
 * anywhere.
 */
function resolvePackages(inline: boolean): Plugin {
  return {
    name: 'weir-packages',
    setup(b) {
      b.onResolve({ filter: /^weir-stream(\/.*)?$/ }, (args) => ({ path: engineFile(args.path), external: !inline }));
      b.onResolve({ filter: /^[^./]/ }, (args) => {
        if (isBuiltin(args.path)) return { path: args.path, external: true };
        try {
          return { path: createRequire(args.importer).resolve(args.path), external: true };
        } catch (e) {
          throw new Error(`cannot find package '${args.path}' imported by ${args.importer}: install it where the job runs (${(e as Error).message})`);
        }
      });
    },
  };
}

/** Options both builds share: one ES module per entry, for this Node, with inline source maps. */
const NODE_ESM = {
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outExtension: { '.js': '.mjs' },
  sourcemap: 'inline',
  logLevel: 'silent',
} as const;

export interface CompiledJob {
  /** The job module as one ES module file: it loads whatever the project's `"type"` is. */
  readonly path: string;
  /** Removes the compiled files. */
  discard(): Promise<void>;
}

/**
 * Compiles a job module (TypeScript or JavaScript, with its local imports) into one ES module,
 * the way the installed package loads a user's job: no TypeScript loader at run time, and no
 * dependence on the user's package.json `"type"`. Its `weir-stream` imports are the running
 * engine's, its npm packages stay where they are installed.
 */
export async function compileJob(modulePath: string): Promise<CompiledJob> {
  const outdir = await mkdtemp(join(tmpdir(), 'weir-job-'));
  try {
    await build({ ...NODE_ESM, entryPoints: { job: modulePath }, outdir, plugins: [resolvePackages(false)] });
  } catch (e) {
    await rm(outdir, { recursive: true, force: true });
    throw e;
  }
  return { path: join(outdir, 'job.mjs'), discard: () => rm(outdir, { recursive: true, force: true }) };
}

export interface WorkerBundle {
  /** The TaskManager thread's entry, as plain JavaScript. */
  readonly entry: string;
  /** The job module as plain JavaScript. */
  readonly jobModule: string;
  /** Removes the compiled files. */
  discard(): Promise<void>;
}

/**
 * What worker-thread TaskManagers load, once per job. From the compiled package: the engine's
 * own thread entry and the compiled job. From the sources: the thread entry and the job compiled
 * into one bundle (one copy of the engine for both), so threads start without a TypeScript
 * loader of their own, which costs each hundreds of milliseconds. Undefined when the sources
 * cannot be bundled: the workers then compile on load instead.
 */
export async function bundleForWorkers(modulePath: string, compiled: CompiledJob | undefined): Promise<WorkerBundle | undefined> {
  if (!RUNNING_FROM_SOURCES) {
    const job = compiled ?? (await compileJob(modulePath));
    return { entry: join(ENGINE, 'worker', 'slot-executor-thread.js'), jobModule: job.path, discard: compiled ? async () => {} : job.discard };
  }
  const outdir = await mkdtemp(join(tmpdir(), 'weir-bundle-'));
  try {
    await build({
      ...NODE_ESM,
      entryPoints: { 'slot-executor': join(ENGINE, 'worker', 'slot-executor-thread.ts'), job: modulePath },
      splitting: true,
      outdir,
      plugins: [resolvePackages(true)],
    });
  } catch {
    await rm(outdir, { recursive: true, force: true });
    return undefined;
  }
  return { entry: join(outdir, 'slot-executor.mjs'), jobModule: join(outdir, 'job.mjs'), discard: () => rm(outdir, { recursive: true, force: true }) };
}
