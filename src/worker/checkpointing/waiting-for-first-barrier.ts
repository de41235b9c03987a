import type { Barrier } from '../../network/stream-event.ts';
import { AlternatingCollectingBarriers } from './alternating-collecting-barriers.ts';
import type { BarrierHandlerController } from './barrier-handler-controller.ts';
import type { BarrierHandlerState } from './barrier-handler-state.ts';
import { CollectingAlignedBarriers } from './collecting-aligned-barriers.ts';
import { CollectingUnalignedBarriers } from './collecting-unaligned-barriers.ts';

/**
 * Exactly-once, no checkpoint pending. The first barrier says how its checkpoint goes (weir's
 * coordinator decides that per checkpoint, where Flink fixes it per job): unaligned, aligned,
 * or aligned with a timeout after which it switches to unaligned.
 */
export class WaitingForFirstBarrier implements BarrierHandlerState {
  /** Never shown: a pending checkpoint has left this state by the time anyone asks. */
  readonly style = 'aligned' as const;

  barrierReceived(controller: BarrierHandlerController, channel: number, barrier: Barrier): BarrierHandlerState {
    if (barrier.options.unaligned) return CollectingUnalignedBarriers.start(controller, this, channel).barrierReceived(controller, channel);
    // With a single channel there is nothing to wait for: it is aligned as soon as it is in.
    if (barrier.options.alignedTimeout > 0 && controller.channelCount > 1) return AlternatingCollectingBarriers.start(controller, this, channel, barrier);
    return new CollectingAlignedBarriers(this).barrierReceived(controller, channel, barrier);
  }

  alignedCheckpointTimeout(): BarrierHandlerState {
    return this;
  }

  abort(): BarrierHandlerState {
    return this;
  }

  endOfPartition(): BarrierHandlerState {
    return this;
  }
}
