import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUNDLE_DIRECTORY } from './blob-store.ts';
import { bundleHash } from './job-bundle.ts';

/** A bundle that could not be fetched, or whose bytes are not the ones its hash names. */
export class BundleFetchError extends Error {
  readonly hash: string;
  readonly source: string;

  constructor(hash: string, source: string, detail: string, cause?: unknown) {
    super(`the job bundle ${hash.slice(0, 12)} could not be fetched from ${source}: ${detail}`, cause === undefined ? undefined : { cause });
    this.name = 'BundleFetchError';
    this.hash = hash;
    this.source = source;
  }
}

/** Asks the JobManager for a bundle's bytes (over the RPC connection: the token and TLS cover it). */
export type FetchBundle = (hash: string) => Promise<Uint8Array>;

/**
 * A TaskManager's job bundles: fetched from the JobManager by content hash, checked against the
 * hash, kept in its working directory, and fetched once however many slots load the job.
 */
export class BundleCache {
  readonly directory: string;
  readonly #source: string;
  readonly #fetch: FetchBundle;
  readonly #fetching = new Map<string, Promise<string>>();

  /** `source`: where bundles come from, as errors name it. */
  constructor(workDir: string, source: string, fetch: FetchBundle) {
    this.directory = join(workDir, BUNDLE_DIRECTORY);
    mkdirSync(this.directory, { recursive: true });
    this.#source = source;
    this.#fetch = fetch;
  }

  /** The bundle's path here, fetched first if need be. */
  get(hash: string): Promise<string> {
    const path = join(this.directory, `${hash}.mjs`);
    if (existsSync(path)) return Promise.resolve(path);
    let p = this.#fetching.get(hash);
    if (!p) {
      p = this.#load(hash, path).finally(() => this.#fetching.delete(hash));
      this.#fetching.set(hash, p);
    }
    return p;
  }

  async #load(hash: string, path: string): Promise<string> {
    let code: Uint8Array;
    try {
      code = await this.#fetch(hash);
    } catch (e) {
      throw new BundleFetchError(hash, this.#source, (e as Error).message, e);
    }
    const got = bundleHash(code);
    if (got !== hash) throw new BundleFetchError(hash, this.#source, `its bytes hash to ${got}: they were changed on the way`);
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, code);
    renameSync(tmp, path);
    return path;
  }
}
