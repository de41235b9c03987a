import type { FromTaskManager, ToTaskManager } from '../network/control-messages.ts';

/** How the JobMaster talks to one TaskManager, wherever it runs. */
export interface TaskManagerGateway {
  readonly index: number;
  /** Where it runs: TaskManagers outside this thread answer heartbeats. */
  readonly location: 'in-thread' | 'worker-thread' | 'remote';
  /** For remote ones: the process and slot, as errors name it ("slot 1 of TaskManager tm-a at 10.0.0.2"). */
  readonly where?: string;
  /** For remote ones: the host its process runs on (the REST API's subtask host). */
  readonly host?: string;
  send(message: ToTaskManager, transfer?: readonly Transferable[]): void;
  /** Messages from the TaskManager; a lost TaskManager is reported through onLost. */
  onMessage(handler: (message: FromTaskManager) => void): void;
  onLost(handler: (error: Error) => void): void;
  /** `force`: it no longer answers; end it without asking. */
  terminate(force?: boolean): Promise<void>;
}

type Transferable = import('node:worker_threads').TransferListItem;
