import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { createRequire, isBuiltin } from 'node:module';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { JobModuleError } from '../api/job-module-error.ts';

/** The engine's own directory (src/ or dist/): files in it stay outside a bundle. */
const ENGINE = fileURLToPath(new URL('..', import.meta.url));

/** A job module with its local imports and npm dependencies in one ES module, named by its content. */
export interface JobBundle {
  readonly code: Buffer;
  /** sha256 of the code, hex: the JobManager serves it under this name and TaskManagers check it. */
  readonly hash: string;
  /** The job module's file name, as the JobManager shows it. */
  readonly name: string;
}

export function bundleHash(code: Uint8Array): string {
  return createHash('sha256').update(code).digest('hex');
}

/**
 * Bundles a job for a cluster, whose processes may share no filesystem with the client: its local
 * imports and npm packages go in; weir itself stays out (`weir-stream` imports, and engine files a
 * job imports by path, become `weir-stream/__engine__/...`), resolved by each process to its own
 * engine (engine-imports.mjs), and so do packages with native addons, which must be installed
 * where the job runs.
 */
export async function bundleJob(modulePath: string): Promise<JobBundle> {
  const entry = resolve(modulePath);
  if (!existsSync(entry)) throw new JobModuleError(entry, 'file not found');
  let code: Buffer;
  try {
    const out = await build({
      entryPoints: [entry],
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      sourcemap: 'inline',
      // The map names the user's files by absolute URL: the bundle runs from weir-bundles/ on
      // another process (or machine), and its stacks name the file and line the user wrote.
      absWorkingDir: process.cwd(),
      sourceRoot: `${pathToFileURL(process.cwd()).href}/`,
      logLevel: 'silent',
      // A bundled CommonJS package may call require(): give the module one.
      banner: { js: "import { createRequire as __weirCreateRequire } from 'node:module'; const require = __weirCreateRequire(import.meta.url);" },
      plugins: [keepEngineOutside()],
    });
    code = Buffer.from(out.outputFiles[0]!.contents);
  } catch (e) {
    const errors = (e as { errors?: Array<{ text: string; location?: { file: string; line: number; column: number } | null }> }).errors;
    const detail = errors?.length
      ? errors.map((x) => (x.location ? `${resolve(x.location.file)}:${x.location.line}:${x.location.column}: ${x.text}` : x.text)).join('; ')
      : (e as Error).message;
    throw new JobModuleError(entry, `cannot be bundled for the cluster: ${detail}`, e);
  }
  return { code, hash: bundleHash(code), name: basename(entry) };
}

function keepEngineOutside(): Plugin {
  return {
    name: 'weir-engine-outside',
    setup(b) {
      b.onResolve({ filter: /^weir-stream(\/.*)?$/ }, (args) => ({ path: args.path, external: true }));
      b.onResolve({ filter: /^\.\.?\// }, (args) => {
        const target = resolve(args.resolveDir, args.path);
        if (!target.startsWith(ENGINE + (ENGINE.endsWith(sep) ? '' : sep))) return undefined;
        return { path: `weir-stream/__engine__/${relative(ENGINE, target).split(sep).join('/')}`, external: true };
      });
      b.onResolve({ filter: /^[^./]/ }, (args) => {
        if (isBuiltin(args.path)) return { path: args.path, external: true };
        let file: string;
        try {
          file = createRequire(join(args.resolveDir, 'x.js')).resolve(args.path);
        } catch {
          return undefined; // esbuild reports it with the importer's location
        }
        return hasNativeAddon(file) ? { path: args.path, external: true } : undefined;
      });
    },
  };
}

/** Whether the package a file belongs to ships compiled code (a .node file, a binding.gyp, prebuilds). */
function hasNativeAddon(file: string): boolean {
  let dir = dirname(file);
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  if (existsSync(join(dir, 'binding.gyp')) || existsSync(join(dir, 'prebuilds'))) return true;
  for (const sub of ['build/Release', 'build', '.']) {
    const d = join(dir, sub);
    if (existsSync(d) && readdirSync(d).some((n) => n.endsWith('.node'))) return true;
  }
  return false;
}
