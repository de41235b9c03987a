import { readFileSync } from 'node:fs';

/**
 * What weir says where Flink's clients show the cluster's version (`flink-version`): the npm
 * package and its version, so that nobody mistakes it for a Flink release.
 */
export const WEIR_VERSION: string = (() => {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { name: string; version: string };
    return `${pkg.name} ${pkg.version}`;
  } catch {
    // Bundled somewhere without its package.json beside it: the name still says what it is.
    return 'weir-stream';
  }
})();
