#!/usr/bin/env node
// The weir command. From the repository it runs weir's TypeScript sources under tsx (no build
// step); from the installed package, the compiled dist/.
import { existsSync } from 'node:fs';
import { register } from 'node:module';

const sources = new URL('../src/cli/main.ts', import.meta.url);
if (existsSync(sources)) {
  const tsx = await import('tsx/esm/api');
  tsx.register();
  register('../scripts/dev-conditions.mjs', import.meta.url);
  await import(sources.href);
} else {
  await import('../dist/cli/main.js');
}
