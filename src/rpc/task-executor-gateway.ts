import type { TaskRestoreState } from '../checkpoint/state-handles.ts';
import type { RingShape } from '../network/segment-ring.ts';
import type { CheckpointOptions } from '../network/stream-event.ts';
import type { WireWatermark } from '../network/wire-watermark.ts';
import type { GatewayMethods, NoPayload } from './gateway-proxy.ts';

/**
 * What the JobMaster calls on one slot executor (Flink's TaskExecutorGateway), wherever it runs:
 * in the JobMaster's thread, in a worker thread, or in a slot of a TaskManager process. Every call
 * is a one-way message (see gateway-proxy.ts); answers come back through the JobMasterGateway.
 * Calls that carry an `attempt` are for that attempt's subtasks only: a slot executor ignores
 * those of another attempt, except `deploy` (which starts one) and `cancel` (which is answered
 * for any attempt, as the JobMaster waits for every answer).
 */
export interface TaskExecutorGateway {
  /** Flink's submitTask: cancels what runs and starts this attempt's subtasks of the slot. */
  deploy(deployment: SlotDeployment): void;
  /** Sources snapshot and emit the barrier. */
  triggerCheckpoint(p: OfAttempt & { readonly checkpointId: number; readonly timestamp: number; readonly options: CheckpointOptions }): void;
  notifyCheckpointComplete(p: OfAttempt & { readonly checkpointId: number }): void;
  notifyCheckpointAborted(p: OfAttempt & { readonly checkpointId: number; readonly reason: string }): void;
  /** Every subtask has consumed its input and the final checkpoint (if any) is taken: end. */
  finish(p: OfAttempt): void;
  /** Stop with savepoint: sources stop reading (drain: and end their input, so operators flush). */
  stopSources(p: OfAttempt & { readonly drain: boolean }): void;
  /** The stop-with-savepoint failed: sources that were stopped (not drained) read on. */
  resumeSources(p: OfAttempt): void;
  cancel(p: OfAttempt): void;
  /** What the running subtasks are doing, whatever their attempt. */
  describe(p: { readonly requestId: number }): void;
  /** From a source's split enumerator to one of its readers; ordered with the checkpoint triggers. */
  addSplits(p: OfSubtask & { readonly splits: unknown[]; readonly noMoreSplits: boolean }): void;
  sendSourceEvent(p: OfSubtask & { readonly event: unknown }): void;
  /** Watermark alignment: how far this source reader's splits may go in event time (the group's slowest plus its drift). */
  updateWatermarkAlignment(p: OfSubtask & { readonly maxAllowedWatermark: WireWatermark }): void;
  /** Liveness: answered from the executor's event loop; one that stops answering is lost. */
  heartbeat(p: { readonly seq: number }): void;
  /** From the TaskManager process: the TCP connection carrying this channel failed; the subtask at this end fails. */
  channelFailed(p: OfAttempt & { readonly edgeId: number; readonly producer: number; readonly consumer: number; readonly reason: string }): void;
  /** The executor's thread is to end: its subtasks are cancelled first. */
  shutdown(p: NoPayload): void;
}

export const TASK_EXECUTOR_METHODS: GatewayMethods<TaskExecutorGateway> = {
  deploy: true,
  triggerCheckpoint: true,
  notifyCheckpointComplete: true,
  notifyCheckpointAborted: true,
  finish: true,
  stopSources: true,
  resumeSources: true,
  cancel: true,
  describe: true,
  addSplits: true,
  sendSourceEvent: true,
  updateWatermarkAlignment: true,
  heartbeat: true,
  channelFailed: true,
  shutdown: true,
};

/** A call for the subtasks of one attempt. */
export interface OfAttempt {
  readonly attempt: number;
}

/** A call for one subtask of one attempt. */
export interface OfSubtask extends OfAttempt {
  readonly vertexId: string;
  readonly subtask: number;
}

/** What one slot runs of an attempt, and how its channels are laid. */
export interface SlotDeployment extends OfAttempt {
  readonly jobId: string;
  readonly fingerprint: string;
  readonly tasks: TaskDeployment[];
  readonly remoteChannels: RemoteChannelEndpoint[];
  /** Which slot runs each subtask, by vertex id: channels between two subtasks of one slot stay in it. */
  readonly placement: Record<string, number[]>;
  /** In a cluster: where each of the job's slots runs, by index; channels between two slots of one process stay in shared memory. */
  readonly locations?: Record<number, SlotLocation>;
}

export interface TaskDeployment {
  readonly vertexId: string;
  readonly subtask: number;
  /** Source subtasks: the splits of a fresh start (a restore brings them in operator state). */
  readonly splits: unknown[];
  readonly restore: TaskRestoreState | null;
  /** Fault injection: fail this subtask after it has taken this many records (or at its end of input). */
  readonly failAfterRecords?: number;
}

/**
 * A channel between two slots: its shared-memory ring, which both ends attach to. Between
 * TaskManager processes the JobMaster sends no ring: the TaskManager process makes one on each
 * side (see cluster/slot-channels.ts) and fills it in before its slot thread sees the deploy.
 */
export interface RemoteChannelEndpoint {
  readonly edgeId: number;
  readonly producer: number;
  readonly consumer: number;
  readonly role: 'output' | 'input';
  /** The slot (index) of the channel's other end. */
  readonly peer: number;
  readonly ring?: SharedArrayBuffer;
  readonly shape: RingShape;
  /**
   * The consuming slot's doorbell (network/doorbell.ts), the same for all of a slot's input rings
   * of one deploy: the ring's writer rings it, and the slot waits on it alone. None: the reader
   * waits on the ring.
   */
  readonly doorbell?: SharedArrayBuffer;
}

/** Where a slot of a job runs in a cluster: the TaskManager process (its resource id) and its data address. */
export interface SlotLocation {
  readonly taskManagerId: string;
  readonly host: string;
  readonly dataPort: number;
}
