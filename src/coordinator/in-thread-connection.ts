import type { WeirConfig } from '../config/configuration.ts';
import type { LogLevel } from '../log/logger.ts';
import type { JobGraph } from '../graph/job-graph.ts';
import type { StopReason } from '../lifecycle/service.ts';
import type { FromTaskExecutor, ToTaskExecutor } from '../rpc/control-protocol.ts';
import type { CheckpointStorageWorkerView } from '../checkpoint/checkpoint-storage.ts';
import { SlotExecutor } from '../worker/slot-executor.ts';
import type { SlotExecutorConnection } from './slot-executor-connection.ts';
import { registerUncaughtErrorOwner, runAsOwner, unregisterUncaughtErrorOwner, type UncaughtErrorOwner } from './uncaught-errors.ts';

/**
 * A slot executor in the JobMaster's own thread. Messages are still delivered asynchronously, in
 * order, so the protocol behaves exactly as it does across threads. Its work runs in its own
 * async context, so that an error user code leaves uncaught fails this TaskManager (as it would
 * end a worker thread) instead of the process.
 */
export class InThreadConnection implements SlotExecutorConnection, UncaughtErrorOwner {
  readonly index: number;
  readonly location = 'in-thread' as const;
  readonly #executor: SlotExecutor;
  #handler: (message: FromTaskExecutor) => void = () => {};
  #lost: (error: Error) => void = () => {};
  readonly #cancellationTimeout: number;
  #stopped: Promise<void> | undefined;

  constructor(index: number, taskManagers: number, jobGraph: JobGraph, config: WeirConfig, storage: CheckpointStorageWorkerView, logLevel?: LogLevel) {
    this.index = index;
    this.#cancellationTimeout = config['task.cancellation.timeout'];
    this.#executor = new SlotExecutor({
      index,
      taskManagers,
      jobGraph,
      config,
      storage,
      logLevel,
      send: (m) => queueMicrotask(() => this.#handler(m)),
    });
    registerUncaughtErrorOwner(this);
  }

  send(message: ToTaskExecutor): void {
    queueMicrotask(() => runAsOwner(this, () => this.#executor.receive(message)));
  }

  onMessage(handler: (message: FromTaskExecutor) => void): void {
    this.#handler = handler;
  }

  onLost(handler: (error: Error) => void): void {
    this.#lost = handler;
  }

  onUncaughtError(error: unknown, kind: 'exception' | 'rejection'): void {
    const what = kind === 'exception' ? 'an uncaught exception' : 'an unhandled promise rejection';
    const cause = error instanceof Error ? error : new Error(String(error));
    const lost = new Error(`TaskManager ${this.index} (in-thread) stopped: ${what} in the job's code: ${cause.message}`, { cause });
    lost.stack = `${lost.name}: ${lost.message}\n${cause.stack?.split('\n').slice(1).join('\n') ?? ''}`;
    // Also after stop(): the JobMaster logs what a replaced TaskManager's leftovers raise.
    this.#lost(lost);
  }

  /**
   * Bounded by task.cancellation.timeout: a subtask that never stops cannot keep the job from
   * ending. Whatever the reason: code in this thread cannot be ended without its consent.
   */
  stop(reason: StopReason): Promise<void> {
    this.#stopped ??= this.#stop(reason);
    return this.#stopped;
  }

  async #stop(reason: StopReason): Promise<void> {
    unregisterUncaughtErrorOwner(this);
    const limit = this.#cancellationTimeout;
    const stopped = this.#executor.stop(reason);
    if (limit <= 0) return stopped;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([stopped, new Promise<void>((resolve) => (timer = setTimeout(resolve, limit)))]);
    clearTimeout(timer);
  }
}
