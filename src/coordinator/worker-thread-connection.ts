import { Worker, type ResourceLimits } from 'node:worker_threads';
import type { StopReason } from '../lifecycle/service.ts';
import type { FromTaskExecutor, SlotExecutorThreadInit, ToTaskExecutor } from '../rpc/control-protocol.ts';
import { gatewayProxy } from '../rpc/gateway-proxy.ts';
import { TASK_EXECUTOR_METHODS, type TaskExecutorGateway } from '../rpc/task-executor-gateway.ts';
import type { SlotExecutorConnection } from './slot-executor-connection.ts';

const BOOTSTRAP = new URL('../worker/worker-bootstrap.mjs', import.meta.url);

/** Profiling flags of this process go to the threads too (a bundled thread gets no other flags: it needs no loader). */
const PROFILING = process.execArgv.filter((a) => /^--(cpu|heap)-prof/.test(a));

/** A slot executor in a worker thread of its own: subtasks there run on another core. */
export class WorkerThreadConnection implements SlotExecutorConnection {
  readonly index: number;
  readonly location = 'worker-thread' as const;
  readonly ready: Promise<void>;
  readonly #worker: Worker;
  readonly #executor: TaskExecutorGateway = gatewayProxy(TASK_EXECUTOR_METHODS, (m) => this.send(m));
  #handler: (message: FromTaskExecutor) => void = () => {};
  #lost: (error: Error) => void = () => {};
  #stopping: Promise<void> | undefined;

  /** `entry`: a bundled slot executor entry (plain JavaScript); otherwise the TypeScript bootstrap. */
  constructor(init: SlotExecutorThreadInit, resourceLimits: ResourceLimits, entry?: string) {
    this.index = init.index;
    this.#worker = entry
      ? new Worker(entry, { workerData: init, stdout: false, stderr: false, resourceLimits, execArgv: ['--enable-source-maps', ...PROFILING] })
      : new Worker(BOOTSTRAP, { workerData: init, stdout: false, stderr: false, resourceLimits });
    this.ready = new Promise((resolve, reject) => {
      const first = (m: FromTaskExecutor) => {
        if (m.type === 'ready') resolve();
        else if (m.type === 'deployFailed') reject(Object.assign(new Error(m.error.message), { name: m.error.name, stack: m.error.stack }));
      };
      this.#worker.once('message', first);
      this.#worker.once('error', reject);
      // Terminated (or crashed) before it was ready: nobody would wait for it forever.
      this.#worker.once('exit', (code) => reject(new Error(`TaskManager ${this.index} (worker thread) exited with code ${code} before it was ready`)));
    });
    this.#worker.on('message', (m: FromTaskExecutor) => this.#handler(m));
    this.#worker.on('error', (e) => {
      if (!this.#stopping) this.#lost(e);
    });
    this.#worker.on('exit', (code) => {
      if (!this.#stopping) this.#lost(new Error(`TaskManager ${this.index} (worker thread) exited with code ${code}`));
    });
  }

  send(message: ToTaskExecutor): void {
    this.#worker.postMessage(message);
  }

  onMessage(handler: (message: FromTaskExecutor) => void): void {
    this.#handler = handler;
  }

  onLost(handler: (error: Error) => void): void {
    this.#lost = handler;
  }

  /**
   * Asks the thread to shut down, then ends it. `lost`: at once, for a thread that no longer
   * answers (terminate() stops JavaScript even in a busy loop).
   */
  stop(reason: StopReason): Promise<void> {
    this.#stopping ??= this.#stop(reason);
    return this.#stopping;
  }

  async #stop(reason: StopReason): Promise<void> {
    if (reason.code !== 'lost') {
      this.#executor.shutdown({});
      const exited = new Promise<void>((resolve) => this.#worker.once('exit', () => resolve()));
      const timeout = new Promise<void>((resolve) => setTimeout(resolve, 2000).unref());
      await Promise.race([exited, timeout]);
    }
    await this.#worker.terminate();
  }
}
