import { parentPort, workerData } from 'node:worker_threads';
import { pathToFileURL } from 'node:url';
import { createCheckpointStorageWorkerView } from '../checkpoint/create-checkpoint-storage.ts';
import type { FromTaskManager, TaskManagerThreadInit, ToTaskManager } from '../network/control-messages.ts';
import { serializeError } from '../network/control-messages.ts';
import { JobModuleError } from '../api/job-module-error.ts';
import { SlotExecutor } from './slot-executor.ts';

/**
 * A SlotExecutor in a worker thread (local mode, or a slot of a TaskManager process). Functions cannot cross threads, so it loads the job module
 * itself and builds the graph from it; the JobMaster checks that the graphs agree.
 */
interface JobModule {
  readonly default?: {
    plan?: (args: readonly string[], layers: TaskManagerThreadInit['layers'], options: { modulePath: string; builtIn: string }) => Promise<{ jobGraph: any; config: any }>;
  };
}

const port = parentPort!;
const init = workerData as TaskManagerThreadInit;
const send = (m: FromTaskManager) => port.postMessage(m);

try {
  const mod = (await import(pathToFileURL(init.modulePath).href)) as JobModule;
  if (typeof mod.default?.plan !== 'function') {
    throw new JobModuleError(init.jobModulePath, 'its default export is not a job: write `export default defineJob((env, args) => { ... })`');
  }
  // A builder that throws here (and not in the JobManager's thread) names the module like it would there.
  const { jobGraph, config } = await mod.default.plan(init.args, init.layers, { modulePath: init.jobModulePath, builtIn: `TaskManager ${init.index} (worker thread)` });
  const tm = new SlotExecutor({ index: init.index, taskManagers: init.taskManagers, jobGraph, config, send, storage: createCheckpointStorageWorkerView(config), logLevel: init.logLevel });
  port.on('message', (m: ToTaskManager) => {
    if (m.type === 'shutdown') {
      void tm.shutdown().then(() => process.exit(0));
      return;
    }
    tm.handle(m);
  });
  send({ type: 'ready', tm: init.index });
} catch (e) {
  send({ type: 'deploy-failed', tm: init.index, attempt: -1, error: serializeError(e) });
}
