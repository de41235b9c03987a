import type { StopReason } from '../lifecycle/service.ts';
import type { FromTaskExecutor, ToTaskExecutor } from '../rpc/control-protocol.ts';

/**
 * The JobMaster's message channel to one slot executor, wherever it runs (in this thread, in a
 * worker thread, in a slot of a TaskManager process). Only a channel: the JobMaster calls a
 * TaskExecutorGateway made over `send` (gateway-proxy.ts), and what comes back is dispatched to
 * its JobMasterGateway. Users read it as "TaskManager <index>".
 */
export interface SlotExecutorConnection {
  readonly index: number;
  /** Where it runs: executors outside this thread answer heartbeats. */
  readonly location: 'in-thread' | 'worker-thread' | 'remote';
  /** For remote ones: the process and slot, as errors name it ("slot 1 of TaskManager tm-a at 10.0.0.2"). */
  readonly where?: string;
  /** For remote ones: the host its process runs on (the REST API's subtask host). */
  readonly host?: string;
  /** For remote ones: the resource id of its TaskManager process (what GET /taskmanagers lists). */
  readonly taskManagerId?: string;
  send(message: ToTaskExecutor): void;
  /** Messages from the executor; a lost one is reported through onLost. */
  onMessage(handler: (message: FromTaskExecutor) => void): void;
  onLost(handler: (error: Error) => void): void;
  /** The Service contract's stop: `lost` ends it at once without asking (it no longer answers). */
  stop(reason: StopReason): Promise<void>;
}
