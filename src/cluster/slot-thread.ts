import { Worker } from 'node:worker_threads';
import type { FromTaskManager, RpcMessage, SlotInit, TaskManagerThreadInit, ToTaskManager } from '../network/control-messages.ts';
import { serializeError } from '../network/control-messages.ts';
import type { Logger } from '../log/logger.ts';
import { ENGINE_IMPORTS_HOOK, engineImportsData } from './engine-imports.ts';
import type { SlotChannels } from './slot-channels.ts';
import { RUNNING_FROM_SOURCES } from '../coordinator/worker-bundle.ts';

const BOOTSTRAP = new URL('./slot-bootstrap.mjs', import.meta.url);
const THREAD_ENTRY = new URL(`../worker/slot-executor-thread.${RUNNING_FROM_SOURCES ? 'ts' : 'js'}`, import.meta.url).href;

/**
 * One slot of a TaskManager process at work for a job: a worker thread running the worker
 * TaskManager with the job's bundle loaded, as a worker-thread TaskManager of `weir run` does. The
 * JobMaster's messages come over RPC; a deploy's channels get their rings here first.
 */
export class SlotThread {
  readonly allocation: string;
  readonly slot: number;
  readonly jobId: string;
  readonly #index: number;
  readonly #worker: Worker;
  readonly #channels: SlotChannels;
  readonly #send: (m: RpcMessage) => void;
  readonly #log: Logger;
  #ending = false;
  readonly exited: Promise<void>;

  constructor(o: { allocation: string; slot: number; init: SlotInit; bundlePath: string; channels: SlotChannels; send: (m: RpcMessage) => void; log: Logger }) {
    this.allocation = o.allocation;
    this.slot = o.slot;
    this.jobId = o.init.jobId;
    this.#index = o.init.index;
    this.#channels = o.channels;
    this.#send = o.send;
    this.#log = o.log;
    const init: TaskManagerThreadInit & { bootstrap: unknown } = {
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
    this.#worker = new Worker(BOOTSTRAP, { workerData: init, stdout: false, stderr: false });
    this.#worker.on('message', (m: FromTaskManager) => this.#fromThread(m));
    this.#worker.on('error', (e) => this.#lost(e));
    this.exited = new Promise((resolve) =>
      this.#worker.once('exit', (code) => {
        this.#channels.release(this.allocation);
        this.#lost(new Error(`its thread exited with code ${code}`));
        resolve();
      }),
    );
  }

  post(message: ToTaskManager): void {
    if (message.type === 'deploy') {
      let deploy: ToTaskManager;
      try {
        deploy = this.#channels.prepare(this.allocation, message, (e, reason) =>
          this.#worker.postMessage({ type: 'channel-failed', attempt: message.attempt, edgeId: e.edgeId, producer: e.producer, consumer: e.consumer, reason } satisfies ToTaskManager),
        );
      } catch (e) {
        this.#toJobManager({ type: 'deploy-failed', tm: this.#index, attempt: message.attempt, error: serializeError(e) });
        return;
      }
      this.#worker.postMessage(deploy);
      return;
    }
    this.#worker.postMessage(message);
  }

  /** Ends the thread (asked first, then terminated: the JobMaster has let go of the slot). */
  async stop(): Promise<void> {
    this.#ending = true;
    this.#worker.postMessage({ type: 'shutdown' } satisfies ToTaskManager);
    const timer = setTimeout(() => void this.#worker.terminate(), 2000);
    await this.exited;
    clearTimeout(timer);
  }

  #fromThread(m: FromTaskManager): void {
    // Its channels of the cancelled attempt go now: the next deploy makes new ones.
    if (m.type === 'canceled') this.#channels.release(this.allocation, m.attempt);
    this.#toJobManager(m);
  }

  #toJobManager(message: FromTaskManager): void {
    this.#send({ type: 'from-slot', allocation: this.allocation, message });
  }

  #lost(e: Error): void {
    if (this.#ending) return;
    this.#ending = true;
    this.#log.error(`slot ${this.slot} (job ${this.jobId}) stopped: ${e.message}`);
    this.#send({ type: 'slot-lost', allocation: this.allocation, error: serializeError(e) });
  }
}
