import type { WeirConfig } from '../config/configuration.ts';
import type { LogLevel } from '../log/logger.ts';
import type { JobGraph } from '../graph/job-graph.ts';
import type { FromTaskManager, ToTaskManager } from '../network/control-messages.ts';
import { TaskManager, type TaskStateStorage } from '../worker/task-manager.ts';
import type { TaskManagerGateway } from './task-manager-gateway.ts';

/**
 * A TaskManager in the JobMaster's own thread. Messages are still delivered asynchronously, in
 * order, so the protocol behaves exactly as it does across threads.
 */
export class InThreadGateway implements TaskManagerGateway {
  readonly index: number;
  readonly #tm: TaskManager;
  #handler: (message: FromTaskManager) => void = () => {};

  constructor(index: number, taskManagers: number, jobGraph: JobGraph, config: WeirConfig, storage: TaskStateStorage, logLevel?: LogLevel) {
    this.index = index;
    this.#tm = new TaskManager({
      index,
      taskManagers,
      jobGraph,
      config,
      storage,
      logLevel,
      send: (m) => queueMicrotask(() => this.#handler(m)),
    });
  }

  send(message: ToTaskManager): void {
    queueMicrotask(() => this.#tm.handle(message));
  }

  onMessage(handler: (message: FromTaskManager) => void): void {
    this.#handler = handler;
  }

  onLost(): void {}

  async terminate(): Promise<void> {
    await this.#tm.shutdown();
  }
}
