import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundleHash } from './job-bundle.ts';

export interface StoredBundle {
  readonly hash: string;
  readonly name: string;
  readonly uploaded: number;
  readonly path: string;
}

/** The directory name bundles are kept under, by JobManagers and TaskManagers alike (engine-imports.mjs recognizes it). */
export const BUNDLE_DIRECTORY = 'weir-bundles';

const HASH = /^[0-9a-f]{64}$/;

export function isBundleHash(s: string): boolean {
  return HASH.test(s);
}

/**
 * The JobManager's job bundles, by content hash (Flink's BlobServer for jars): what was uploaded
 * is written once under its sha256, so a job's TaskManagers fetch exactly the code it was planned
 * with, and the same upload twice is one file.
 */
export class BlobStore {
  readonly directory: string;
  readonly #names = new Map<string, { name: string; uploaded: number }>();

  constructor(workDir: string) {
    this.directory = join(workDir, BUNDLE_DIRECTORY);
    mkdirSync(this.directory, { recursive: true });
    for (const f of readdirSync(this.directory)) {
      const hash = f.replace(/\.mjs$/, '');
      if (isBundleHash(hash)) this.#names.set(hash, { name: f, uploaded: statSync(join(this.directory, f)).mtimeMs });
    }
  }

  put(code: Uint8Array, name: string): StoredBundle {
    const hash = bundleHash(code);
    const path = this.path(hash);
    if (!this.#names.has(hash)) {
      const tmp = `${path}.${process.pid}.tmp`;
      writeFileSync(tmp, code);
      renameSync(tmp, path);
    }
    const entry = { name, uploaded: Date.now() };
    this.#names.set(hash, entry);
    return { hash, path, ...entry };
  }

  has(hash: string): boolean {
    return this.#names.has(hash);
  }

  path(hash: string): string {
    if (!isBundleHash(hash)) throw new RangeError(`not a bundle hash: ${hash}`);
    return join(this.directory, `${hash}.mjs`);
  }

  read(hash: string): Buffer | undefined {
    return this.has(hash) ? readFileSync(this.path(hash)) : undefined;
  }

  list(): StoredBundle[] {
    return [...this.#names].map(([hash, e]) => ({ hash, path: this.path(hash), ...e }));
  }
}
