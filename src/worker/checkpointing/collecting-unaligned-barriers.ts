import type { AbortReason } from './abort-reason.ts';
import type { BarrierHandlerController } from './barrier-handler-controller.ts';
import type { BarrierHandlerState } from './barrier-handler-state.ts';

/**
 * The snapshot of an unaligned checkpoint is taken; the records that its barriers overtook are
 * being captured, channel by channel, until each channel's barrier is in.
 */
export class CollectingUnalignedBarriers implements BarrierHandlerState {
  readonly style = 'unaligned' as const;
  /** Where to go once this checkpoint is done with. */
  readonly #idle: BarrierHandlerState;

  private constructor(idle: BarrierHandlerState) {
    this.#idle = idle;
  }

  /**
   * Takes the snapshot now and records the in-flight data: channels whose (in-order) barrier is
   * already in carry nothing of this checkpoint; the channel of a priority barrier carries all it
   * queued; the others carry what they queued and what arrives until their barrier. Alignment
   * ends here, so every channel is released.
   */
  static start(controller: BarrierHandlerController, idle: BarrierHandlerState, priorityChannel?: number): CollectingUnalignedBarriers {
    const inFlight: unknown[][][] = [];
    for (let channel = 0; channel < controller.channelCount; channel++) inFlight.push(record(controller, channel, priorityChannel));
    controller.unblockAllChannels();
    controller.triggerUnalignedCheckpoint(inFlight);
    return new CollectingUnalignedBarriers(idle);
  }

  barrierReceived(controller: BarrierHandlerController, channel: number): BarrierHandlerState {
    controller.stopRecording(channel);
    if (!controller.allBarriersReceived()) return this;
    endRecording(controller);
    controller.completeInFlight();
    return this.#idle;
  }

  alignedCheckpointTimeout(): BarrierHandlerState {
    return this;
  }

  abort(controller: BarrierHandlerController, checkpointId: number, reason: AbortReason): BarrierHandlerState {
    endRecording(controller);
    controller.abortCheckpoint(checkpointId, reason);
    return this.#idle;
  }

  endOfPartition(): BarrierHandlerState {
    return this;
  }
}

function record(controller: BarrierHandlerController, channel: number, priorityChannel: number | undefined): unknown[][] {
  if (channel === priorityChannel) {
    // Its barrier is in already: what it overtook is all there is.
    const overtaken = controller.startRecording(channel);
    controller.stopRecording(channel);
    return overtaken;
  }
  return controller.hasBarrier(channel) ? [] : controller.startRecording(channel);
}

/** Recording of in-flight input ends on every channel, and every channel is read again. */
function endRecording(controller: BarrierHandlerController): void {
  for (let channel = 0; channel < controller.channelCount; channel++) controller.stopRecording(channel);
  controller.unblockAllChannels();
}
