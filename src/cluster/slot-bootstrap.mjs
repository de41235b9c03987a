// Entry of a slot's thread in a TaskManager process: the engine (TypeScript from the repository,
// under tsx; or the compiled package) and the hooks that resolve a job bundle's `weir-stream`
// imports to it, then the worker TaskManager itself.
import { register } from 'node:module';
import { workerData } from 'node:worker_threads';

const boot = workerData.bootstrap;
if (boot.ext === 'ts') {
  const tsx = await import('tsx/esm/api');
  tsx.register();
}
register(boot.hook, { data: boot.data });
await import(boot.entry);
