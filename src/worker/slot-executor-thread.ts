import { parentPort, workerData } from 'node:worker_threads';
import { pathToFileURL } from 'node:url';
import { createCheckpointStorageWorkerView } from '../checkpoint/create-checkpoint-storage.ts';
import { SHUTDOWN } from '../lifecycle/service.ts';
import type { FromTaskExecutor, SlotExecutorThreadInit, ToTaskExecutor } from '../rpc/control-protocol.ts';
import { gatewayProxy } from '../rpc/gateway-proxy.ts';
import { JOB_MASTER_METHODS } from '../rpc/job-master-gateway.ts';
import { serializeError } from '../rpc/serialized-error.ts';
import { JobModuleError } from '../api/job-module-error.ts';
import { SlotExecutor } from './slot-executor.ts';

/**
 * A SlotExecutor in a worker thread (local mode, or a slot of a TaskManager process). Functions cannot cross threads, so it loads the job module
 * itself and builds the graph from it; the JobMaster checks that the graphs agree.
 */
interface JobModule {
  readonly default?: {
    plan?: (args: readonly string[], layers: SlotExecutorThreadInit['layers'], options: { modulePath: string; builtIn: string }) => Promise<{ jobGraph: any; config: any }>;
  };
}

const port = parentPort!;
const init = workerData as SlotExecutorThreadInit;
const send = (m: FromTaskExecutor) => port.postMessage(m);
const jobMaster = gatewayProxy(JOB_MASTER_METHODS, send);

try {
  const mod = (await import(pathToFileURL(init.modulePath).href)) as JobModule;
  if (typeof mod.default?.plan !== 'function') {
    throw new JobModuleError(init.jobModulePath, 'its default export is not a job: write `export default defineJob((env, args) => { ... })`');
  }
  // A builder that throws here (and not in the JobManager's thread) names the module like it would there.
  const { jobGraph, config } = await mod.default.plan(init.args, init.layers, { modulePath: init.jobModulePath, builtIn: `TaskManager ${init.index} (worker thread)` });
  const executor = new SlotExecutor({ index: init.index, taskManagers: init.taskManagers, jobGraph, config, send, storage: createCheckpointStorageWorkerView(config), logLevel: init.logLevel });
  port.on('message', (m: ToTaskExecutor) => {
    // The thread ends with its executor.
    if (m.type === 'shutdown') void executor.stop(SHUTDOWN).then(() => process.exit(0));
    else executor.receive(m);
  });
  jobMaster.ready({ tm: init.index });
} catch (e) {
  jobMaster.deployFailed({ tm: init.index, attempt: -1, error: serializeError(e) });
}
