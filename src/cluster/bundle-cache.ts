import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUNDLE_DIRECTORY } from './blob-store.ts';
import { bundleHash } from './job-bundle.ts';

/** A bundle that could not be fetched, or whose bytes are not the ones its hash names. */
export class BundleFetchError extends Error {
  readonly hash: string;
  readonly url: string;

  constructor(hash: string, url: string, detail: string, cause?: unknown) {
    super(`the job bundle ${hash.slice(0, 12)} could not be fetched from ${url}: ${detail}`, cause === undefined ? undefined : { cause });
    this.name = 'BundleFetchError';
    this.hash = hash;
    this.url = url;
  }
}

/**
 * A TaskManager's job bundles: fetched from the JobManager by content hash (over the one address
 * it has, with the cluster token), checked against the hash, kept in its working directory, and
 * fetched once however many slots load the job.
 */
export class BundleCache {
  readonly directory: string;
  readonly #base: string;
  readonly #token: string | null;
  readonly #fetching = new Map<string, Promise<string>>();

  constructor(workDir: string, jobManagerUrl: string, token: string | null) {
    this.directory = join(workDir, BUNDLE_DIRECTORY);
    mkdirSync(this.directory, { recursive: true });
    this.#base = jobManagerUrl;
    this.#token = token;
  }

  /** The bundle's path here, fetched first if need be. */
  get(hash: string): Promise<string> {
    const path = join(this.directory, `${hash}.mjs`);
    if (existsSync(path)) return Promise.resolve(path);
    let p = this.#fetching.get(hash);
    if (!p) {
      p = this.#fetch(hash, path).finally(() => this.#fetching.delete(hash));
      this.#fetching.set(hash, p);
    }
    return p;
  }

  async #fetch(hash: string, path: string): Promise<string> {
    const url = `${this.#base}/blobs/${hash}`;
    let res: Response;
    try {
      res = await fetch(url, { headers: this.#token ? { authorization: `Bearer ${this.#token}` } : {}, signal: AbortSignal.timeout(60_000) });
    } catch (e) {
      throw new BundleFetchError(hash, url, (e as Error).cause instanceof Error ? ((e as Error).cause as Error).message : (e as Error).message, e);
    }
    if (!res.ok) throw new BundleFetchError(hash, url, `HTTP ${res.status} ${await res.text()}`);
    const code = Buffer.from(await res.arrayBuffer());
    const got = bundleHash(code);
    if (got !== hash) throw new BundleFetchError(hash, url, `its bytes hash to ${got}: they were changed on the way`);
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, code);
    renameSync(tmp, path);
    return path;
  }
}
