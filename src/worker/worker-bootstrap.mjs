// Entry of a slot executor's worker thread: TypeScript (the engine's and the user's job module)
// is compiled on load by tsx, so users run no build step.
import { register } from 'tsx/esm/api';

register();
await import('./slot-executor-thread.ts');
