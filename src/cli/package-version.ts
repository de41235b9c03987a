import { createRequire } from 'node:module';

/** This package's version, from its package.json (two levels up from src/cli/ and from dist/cli/). */
export const PACKAGE_VERSION: string = (createRequire(import.meta.url)('../../package.json') as { version: string }).version;
