import type { AbortReason } from './abort-reason.ts';

/**
 * Everything a barrier handler state may do or know, always about the pending checkpoint. The
 * handler implements it over the input gate, the task (a CheckpointableTask) and a clock; the
 * states hold no reference to any of those, so each can be driven by a fake in a test.
 */
export interface BarrierHandlerController {
  readonly channelCount: number;
  /** This channel's barrier of the pending checkpoint is in (the handler marks it before telling the state). */
  hasBarrier(channel: number): boolean;
  allBarriersReceived(): boolean;
  /** Wall-clock ms, as barrier timestamps are. */
  now(): number;

  blockChannel(channel: number): void;
  unblockAllChannels(): void;
  /** Starts capturing the channel's records that come before its barrier; returns the list that fills. */
  startRecording(channel: number): unknown[][];
  stopRecording(channel: number): void;
  /** Calls the handler's alignedCheckpointTimeout event in `delayMs` (replacing an earlier call not yet due). */
  scheduleAlignmentTimeout(delayMs: number): void;

  /** Aligned or counted: every barrier is in; snapshot now. The checkpoint is done with here. */
  triggerCheckpoint(): void;
  /** Snapshot now as unaligned; `inFlight` (per channel) fills until each channel's barrier is in. */
  triggerUnalignedCheckpoint(inFlight: unknown[][][]): void;
  /** Unaligned: the last barrier is in, so the in-flight input is complete. The checkpoint is done with here. */
  completeInFlight(): void;
  /** The pending checkpoint cannot complete in this task. */
  abortCheckpoint(checkpointId: number, reason: AbortReason): void;
}
