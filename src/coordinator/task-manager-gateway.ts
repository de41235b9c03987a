import type { FromTaskManager, ToTaskManager } from '../network/control-messages.ts';

/** How the JobMaster talks to one TaskManager, wherever it runs. */
export interface TaskManagerGateway {
  readonly index: number;
  send(message: ToTaskManager, transfer?: readonly Transferable[]): void;
  /** Messages from the TaskManager; a lost TaskManager is reported through onLost. */
  onMessage(handler: (message: FromTaskManager) => void): void;
  onLost(handler: (error: Error) => void): void;
  terminate(): Promise<void>;
}

type Transferable = import('node:worker_threads').TransferListItem;
