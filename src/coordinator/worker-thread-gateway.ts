import { Worker } from 'node:worker_threads';
import type { FromTaskManager, TaskManagerThreadInit, ToTaskManager } from '../network/control-messages.ts';
import type { TaskManagerGateway } from './task-manager-gateway.ts';

const BOOTSTRAP = new URL('../worker/worker-bootstrap.mjs', import.meta.url);

/** Profiling flags of this process go to the threads too (a bundled thread gets no other flags: it needs no loader). */
const PROFILING = process.execArgv.filter((a) => /^--(cpu|heap)-prof/.test(a));

/** A TaskManager in a worker thread of its own: subtasks there run on another core. */
export class WorkerThreadGateway implements TaskManagerGateway {
  readonly index: number;
  readonly location = 'worker-thread' as const;
  readonly ready: Promise<void>;
  readonly #worker: Worker;
  #handler: (message: FromTaskManager) => void = () => {};
  #lost: (error: Error) => void = () => {};
  #terminating = false;

  /** `entry`: a bundled TaskManager entry (plain JavaScript); otherwise the TypeScript bootstrap. */
  constructor(init: TaskManagerThreadInit, entry?: string) {
    this.index = init.index;
    this.#worker = entry
      ? new Worker(entry, { workerData: init, stdout: false, stderr: false, execArgv: ['--enable-source-maps', ...PROFILING] })
      : new Worker(BOOTSTRAP, { workerData: init, stdout: false, stderr: false });
    this.ready = new Promise((resolve, reject) => {
      const first = (m: FromTaskManager) => {
        if (m.type === 'ready') resolve();
        else if (m.type === 'deploy-failed') reject(Object.assign(new Error(m.error.message), { name: m.error.name, stack: m.error.stack }));
      };
      this.#worker.once('message', first);
      this.#worker.once('error', reject);
      // Terminated (or crashed) before it was ready: nobody would wait for it forever.
      this.#worker.once('exit', (code) => reject(new Error(`TaskManager ${this.index} (worker thread) exited with code ${code} before it was ready`)));
    });
    this.#worker.on('message', (m: FromTaskManager) => this.#handler(m));
    this.#worker.on('error', (e) => {
      if (!this.#terminating) this.#lost(e);
    });
    this.#worker.on('exit', (code) => {
      if (!this.#terminating) this.#lost(new Error(`TaskManager ${this.index} (worker thread) exited with code ${code}`));
    });
  }

  send(message: ToTaskManager, transfer: readonly import('node:worker_threads').TransferListItem[] = []): void {
    this.#worker.postMessage(message, [...transfer]);
  }

  onMessage(handler: (message: FromTaskManager) => void): void {
    this.#handler = handler;
  }

  onLost(handler: (error: Error) => void): void {
    this.#lost = handler;
  }

  /**
   * Asks the thread to shut down, then ends it. `force`: at once, for a thread that no longer
   * answers (terminate() stops JavaScript even in a busy loop).
   */
  async terminate(force = false): Promise<void> {
    this.#terminating = true;
    if (!force) {
      this.#worker.postMessage({ type: 'shutdown' } satisfies ToTaskManager);
      const exited = new Promise<void>((resolve) => this.#worker.once('exit', () => resolve()));
      const timeout = new Promise<void>((resolve) => setTimeout(resolve, 2000).unref());
      await Promise.race([exited, timeout]);
    }
    await this.#worker.terminate();
  }
}
