#!/usr/bin/env node
// The weir command. TypeScript (weir's own sources and the user's job modules) is compiled on
// load by tsx, so no build step is needed.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
