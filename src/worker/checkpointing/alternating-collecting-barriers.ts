import type { Barrier } from '../../network/stream-event.ts';
import type { BarrierHandlerController } from './barrier-handler-controller.ts';
import type { BarrierHandlerState } from './barrier-handler-state.ts';
import { CollectingAlignedBarriers } from './collecting-aligned-barriers.ts';
import { CollectingUnalignedBarriers } from './collecting-unaligned-barriers.ts';

/**
 * An aligned checkpoint with an aligned timeout: it aligns like any other until the timeout,
 * counted from the trigger, has passed; then it switches to unaligned and takes its snapshot.
 */
export class AlternatingCollectingBarriers extends CollectingAlignedBarriers {
  /** Wall-clock ms at which this checkpoint stops aligning. */
  readonly #deadline: number;

  private constructor(idle: BarrierHandlerState, deadline: number) {
    super(idle);
    this.#deadline = deadline;
  }

  /** The checkpoint's first barrier is in, on `channel`. */
  static start(controller: BarrierHandlerController, idle: BarrierHandlerState, channel: number, barrier: Barrier): BarrierHandlerState {
    const deadline = barrier.timestamp + barrier.options.alignedTimeout;
    const wait = deadline - controller.now();
    // The timeout counts from the trigger (Flink: the checkpoint start delay). If it has passed
    // already, switch now: a timer could only fire after the alignment that queued data delayed
    // has completed within this same step.
    if (wait <= 0) return CollectingUnalignedBarriers.start(controller, idle).barrierReceived(controller, channel);
    controller.scheduleAlignmentTimeout(wait);
    return new AlternatingCollectingBarriers(idle, deadline).barrierReceived(controller, channel, barrier);
  }

  override alignedCheckpointTimeout(controller: BarrierHandlerController): BarrierHandlerState {
    const wait = this.#deadline - controller.now();
    if (wait <= 0) return CollectingUnalignedBarriers.start(controller, this.idle);
    // A timer measures its delay from the event loop's cached time, not the wall clock, so it
    // may fire a little early; without another one this checkpoint would never switch.
    controller.scheduleAlignmentTimeout(wait);
    return this;
  }
}
