import type { AbortReason } from './abort-reason.ts';
import type { Barrier } from '../../network/stream-event.ts';
import type { BarrierHandlerController } from './barrier-handler-controller.ts';
import type { BarrierHandlerState } from './barrier-handler-state.ts';

/**
 * At-least-once: barriers are only counted, no channel is held back, and the snapshot is taken
 * when the last one is in; records after a barrier may get into the snapshot (and be processed
 * again after a restore). Savepoints are the exception: they are always aligned, whatever the
 * job's checkpointing mode. Unaligned barriers do not occur here (the configuration refuses
 * unaligned checkpoints without exactly-once). The tracker is its own idle state.
 */
export class CheckpointBarrierTracker implements BarrierHandlerState {
  readonly style = 'at-least-once' as const;

  barrierReceived(controller: BarrierHandlerController, channel: number, barrier: Barrier): BarrierHandlerState {
    if (barrier.options.type === 'savepoint') controller.blockChannel(channel);
    if (!controller.allBarriersReceived()) return this;
    controller.unblockAllChannels();
    controller.triggerCheckpoint();
    return this;
  }

  alignedCheckpointTimeout(): BarrierHandlerState {
    return this;
  }

  abort(controller: BarrierHandlerController, checkpointId: number, reason: AbortReason): BarrierHandlerState {
    controller.unblockAllChannels();
    controller.abortCheckpoint(checkpointId, reason);
    return this;
  }

  endOfPartition(): BarrierHandlerState {
    return this;
  }
}
