// Entry of an lmdb snapshot thread when the engine runs from its TypeScript sources: tsx compiles
// them on load (the compiled package starts lmdb-snapshot-thread.js directly).
import { register } from 'tsx/esm/api';

register();
await import('./lmdb-snapshot-thread.ts');
