import type { AbortReason } from './abort-reason.ts';
import type { Barrier } from '../../network/stream-event.ts';
import type { BarrierHandlerController } from './barrier-handler-controller.ts';
import type { BarrierHandlerState } from './barrier-handler-state.ts';
import { CollectingUnalignedBarriers } from './collecting-unaligned-barriers.ts';

/**
 * An aligned checkpoint has seen some of its barriers: each channel whose barrier is in is held
 * back, so that none of its records after the barrier gets into the snapshot, until the last
 * barrier arrives and the snapshot is taken.
 */
export class CollectingAlignedBarriers implements BarrierHandlerState {
  readonly style: 'aligned' | 'unaligned' = 'aligned';
  /** Where to go once this checkpoint is done with. */
  protected readonly idle: BarrierHandlerState;

  constructor(idle: BarrierHandlerState) {
    this.idle = idle;
  }

  barrierReceived(controller: BarrierHandlerController, channel: number, barrier: Barrier): BarrierHandlerState {
    if (barrier.options.unaligned) {
      // An upstream task switched this checkpoint to unaligned: its barrier overtook what this channel queued.
      return CollectingUnalignedBarriers.start(controller, this.idle, channel).barrierReceived(controller, channel);
    }
    controller.blockChannel(channel);
    if (!controller.allBarriersReceived()) return this;
    controller.unblockAllChannels();
    controller.triggerCheckpoint();
    return this.idle;
  }

  alignedCheckpointTimeout(_controller: BarrierHandlerController): BarrierHandlerState {
    return this;
  }

  abort(controller: BarrierHandlerController, checkpointId: number, reason: AbortReason): BarrierHandlerState {
    controller.unblockAllChannels();
    controller.abortCheckpoint(checkpointId, reason);
    return this.idle;
  }

  endOfPartition(): BarrierHandlerState {
    return this;
  }
}
