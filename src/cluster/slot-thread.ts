import { Worker, type ResourceLimits } from 'node:worker_threads';
import type { StopReason } from '../lifecycle/service.ts';
import type { FromTaskExecutor, SlotExecutorThreadInit, ToTaskExecutor } from '../rpc/control-protocol.ts';
import { gatewayProxy } from '../rpc/gateway-proxy.ts';
import { JOB_MASTER_METHODS, type JobMasterGateway } from '../rpc/job-master-gateway.ts';
import type { ResourceManagerGateway } from '../rpc/resource-manager-gateway.ts';
import { TASK_EXECUTOR_METHODS, type SlotDeployment, type TaskExecutorGateway } from '../rpc/task-executor-gateway.ts';
import type { SlotInit } from '../rpc/task-manager-gateway.ts';
import { serializeError } from '../rpc/serialized-error.ts';
import type { Logger } from '../log/logger.ts';
import { ENGINE_IMPORTS_HOOK, engineImportsData } from './engine-imports.ts';
import type { SlotChannels } from './slot-channels.ts';
import { RUNNING_FROM_SOURCES } from '../coordinator/worker-bundle.ts';

const BOOTSTRAP = new URL('./slot-bootstrap.mjs', import.meta.url);
const THREAD_ENTRY = new URL(`../worker/slot-executor-thread.${RUNNING_FROM_SOURCES ? 'ts' : 'js'}`, import.meta.url).href;

/**
 * One slot of a TaskManager process at work for a job: a worker thread running a slot executor
 * with the job's bundle loaded, as a worker-thread executor of `weir run` does. The JobMaster's
 * messages come over RPC; a deploy's channels get their rings here first.
 */
export class SlotThread {
  readonly allocation: string;
  readonly slot: number;
  readonly jobId: string;
  readonly #index: number;
  readonly #worker: Worker;
  readonly #channels: SlotChannels;
  readonly #jobManager: ResourceManagerGateway;
  /** The slot's executor, in the thread. */
  readonly #executor: TaskExecutorGateway;
  /** The JobMaster, as this slot's executor reaches it (through the JobManager). */
  readonly #jobMaster: JobMasterGateway;
  readonly #log: Logger;
  #ending = false;
  #stopped: Promise<void> | undefined;
  readonly exited: Promise<void>;

  constructor(o: { allocation: string; slot: number; init: SlotInit; bundlePath: string; channels: SlotChannels; jobManager: ResourceManagerGateway; log: Logger; resourceLimits: ResourceLimits }) {
    this.allocation = o.allocation;
    this.slot = o.slot;
    this.jobId = o.init.jobId;
    this.#index = o.init.index;
    this.#channels = o.channels;
    this.#jobManager = o.jobManager;
    this.#log = o.log;
    const init: SlotExecutorThreadInit & { bootstrap: unknown } = {
      type: 'init',
      index: o.init.index,
      taskManagers: o.init.taskManagers,
      modulePath: o.bundlePath,
      jobModulePath: o.init.jobModulePath,
      args: o.init.args,
      layers: o.init.layers,
      ...(o.init.logLevel ? { logLevel: o.init.logLevel } : {}),
      bootstrap: { ext: RUNNING_FROM_SOURCES ? 'ts' : 'js', hook: ENGINE_IMPORTS_HOOK, data: engineImportsData(), entry: THREAD_ENTRY },
    };
    // The bundle carries its source map: stacks name the user's file and line, not weir-bundles/<hash>.mjs.
    this.#worker = new Worker(BOOTSTRAP, { workerData: init, stdout: false, stderr: false, resourceLimits: o.resourceLimits, execArgv: [...process.execArgv, '--enable-source-maps'] });
    this.#executor = gatewayProxy(TASK_EXECUTOR_METHODS, (m) => this.#worker.postMessage(m));
    this.#jobMaster = gatewayProxy(JOB_MASTER_METHODS, (m) => this.#toJobManager(m));
    this.#worker.on('message', (m: FromTaskExecutor) => this.#fromThread(m));
    this.#worker.on('error', (e) => this.#lost(e));
    this.exited = new Promise((resolve) =>
      this.#worker.once('exit', (code) => {
        this.#channels.release(this.allocation);
        this.#lost(new Error(`its thread exited with code ${code}`));
        resolve();
      }),
    );
  }

  post(message: ToTaskExecutor): void {
    if (message.type === 'deploy') this.#deploy(message);
    else this.#worker.postMessage(message);
  }

  /**
   * Ends the thread: asked first, then terminated (the JobMaster has let go of the slot, or its
   * JobManager is gone); `lost` terminates it at once.
   */
  stop(reason: StopReason): Promise<void> {
    this.#stopped ??= this.#stop(reason);
    return this.#stopped;
  }

  async #stop(reason: StopReason): Promise<void> {
    this.#ending = true;
    if (reason.code === 'lost') void this.#worker.terminate();
    else this.#executor.shutdown({});
    const timer = setTimeout(() => void this.#worker.terminate(), 2000);
    await this.exited;
    clearTimeout(timer);
  }

  /** The deploy as the thread gets it: its channels' rings made first. */
  #deploy(message: SlotDeployment): void {
    let deploy: SlotDeployment;
    try {
      deploy = this.#channels.prepare(this.allocation, this.#index, message, (e, reason) =>
        this.#executor.channelFailed({ attempt: message.attempt, edgeId: e.edgeId, producer: e.producer, consumer: e.consumer, reason }),
      );
    } catch (e) {
      this.#jobMaster.deployFailed({ tm: this.#index, attempt: message.attempt, error: serializeError(e) });
      return;
    }
    this.#executor.deploy(deploy);
  }

  #fromThread(m: FromTaskExecutor): void {
    // Its channels of the cancelled attempt go now: the next deploy makes new ones.
    if (m.type === 'canceled') this.#channels.release(this.allocation, m.attempt);
    this.#toJobManager(m);
  }

  #toJobManager(message: FromTaskExecutor): void {
    this.#jobManager.fromSlot({ allocation: this.allocation, message });
  }

  #lost(e: Error): void {
    if (this.#ending) return;
    this.#ending = true;
    this.#log.error(`slot ${this.slot} (job ${this.jobId}) stopped: ${e.message}`);
    this.#jobManager.slotLost({ allocation: this.allocation, error: serializeError(e) });
  }
}
