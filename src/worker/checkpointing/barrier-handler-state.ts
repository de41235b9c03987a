import type { Barrier } from '../../network/stream-event.ts';
import type { AbortReason } from './abort-reason.ts';
import type { BarrierHandlerController } from './barrier-handler-controller.ts';

/**
 * One state of a gate's barrier handling; every event returns the state to continue in. The
 * handler has already decided that the event concerns the pending checkpoint (or starts one):
 * barriers of checkpoints already handled, repeated barriers of one channel, and aborts of other
 * checkpoints never reach a state. A cancel barrier is an abort whose reason says so.
 */
export interface BarrierHandlerState {
  /** How the task's activity words a pending checkpoint in this state. */
  readonly style: 'aligned' | 'unaligned' | 'at-least-once';
  /** `channel`'s barrier is in (already marked as received in the controller). */
  barrierReceived(controller: BarrierHandlerController, channel: number, barrier: Barrier): BarrierHandlerState;
  /** The timer a state scheduled has fired; it may have fired early on the wall clock. */
  alignedCheckpointTimeout(controller: BarrierHandlerController): BarrierHandlerState;
  abort(controller: BarrierHandlerController, checkpointId: number, reason: AbortReason): BarrierHandlerState;
  /**
   * `channel` delivered its end of data. A subtask whose input has ended still takes part in
   * every checkpoint (its upstream sends barriers after end of data), so in weir this neither
   * completes nor aborts an alignment: every state stays as it is.
   */
  endOfPartition(controller: BarrierHandlerController, channel: number): BarrierHandlerState;
}
