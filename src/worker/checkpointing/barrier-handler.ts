import { type Clock, systemClock, type Timer } from '../../clock/clock.ts';
import type { Barrier } from '../../network/stream-event.ts';
import { describeActivity, type TaskActivity } from '../../network/task-activity.ts';
import type { InputGate } from '../input-gate.ts';
import type { AbortReason } from './abort-reason.ts';
import type { CheckpointableTask } from './checkpointable-task.ts';
import type { BarrierHandlerController } from './barrier-handler-controller.ts';
import type { BarrierHandlerState } from './barrier-handler-state.ts';
import type { BarrierMode } from './barrier-mode.ts';
import { CheckpointAbortedError } from './checkpoint-aborted-error.ts';
import { CheckpointBarrierTracker } from './checkpoint-barrier-tracker.ts';
import { WaitingForFirstBarrier } from './waiting-for-first-barrier.ts';

/** The one checkpoint whose barriers this gate is collecting. */
interface PendingGateCheckpoint {
  /** The first of its barriers to arrive. */
  readonly barrier: Barrier;
  readonly firstAt: number;
  readonly startDelayMs: number;
  processedBytes: number;
  /** Set once its snapshot is taken unaligned: settles the in-flight input. */
  inFlight: { readonly resolve: (alignmentMs: number) => void; readonly reject: (e: Error) => void } | undefined;
}

/**
 * Barrier handling for one input gate, one checkpoint at a time (Flink's
 * SingleCheckpointBarrierHandler). What to do with a barrier is the current state's business
 * (see barrier-handler-state.ts); this class keeps the books (which checkpoint is pending, which
 * channels delivered its barrier, the newest one handled, the alignment figures), sorts out the
 * barriers no state needs to see, and carries out the states' side effects on the gate and the
 * task.
 */
export class BarrierHandler {
  readonly #gate: InputGate;
  readonly #task: CheckpointableTask;
  readonly #clock: Clock;
  readonly #wake: () => void;
  readonly #seen: Uint8Array;
  #seenCount = 0;
  /** Channels that delivered their end of data; they still deliver barriers. */
  readonly #ended: Uint8Array;
  #state: BarrierHandlerState;
  #pending: PendingGateCheckpoint | undefined;
  /** The newest checkpoint this gate has finished with (snapshotted or aborted). */
  #lastHandled = 0;
  #timer: Timer | undefined;
  readonly #controller: BarrierHandlerController;

  /** `wake` is called when the aligned timeout fires, so the task runs the switch (checkTimeout) in its loop. */
  constructor(gate: InputGate, mode: BarrierMode, task: CheckpointableTask, wake: () => void = () => {}, clock: Clock = systemClock) {
    this.#gate = gate;
    this.#task = task;
    this.#clock = clock;
    this.#wake = wake;
    this.#seen = new Uint8Array(gate.channels.length);
    this.#ended = new Uint8Array(gate.channels.length);
    this.#state = mode === 'aligned' ? new WaitingForFirstBarrier() : new CheckpointBarrierTracker();
    this.#controller = this.#makeController();
  }

  /** Which checkpoint is aligning, and which channels it still waits for (for checkpoint reasons). */
  activity(): Extract<TaskActivity, { kind: 'aligning' }> | undefined {
    const p = this.#pending;
    if (!p) return undefined;
    return {
      kind: 'aligning',
      checkpointId: p.barrier.checkpointId,
      style: this.#state.style,
      waitingFor: this.#gate.channels.filter((_, i) => !this.#seen[i]).map((c) => c.description),
      forMs: this.#elapsed(p),
    };
  }

  /** The same as people read it. */
  describe(): string | undefined {
    const activity = this.activity();
    return activity && describeActivity({ activity, activitySince: 0, writing: [] }, 0);
  }

  get pendingCheckpoint(): number | undefined {
    return this.#pending?.barrier.checkpointId;
  }

  /** The channels that have delivered their end of data, by gate index. */
  get endedChannels(): number[] {
    return [...this.#ended.keys()].filter((i) => this.#ended[i]);
  }

  /** Counts bytes taken from open channels during alignment (Flink's "processed in-flight data"). */
  noteProcessed(bytes: number): void {
    if (this.#pending && !this.#pending.inFlight) this.#pending.processedBytes += bytes;
  }

  onBarrier(channel: number, barrier: Barrier): void {
    const id = barrier.checkpointId;
    if (id <= this.#lastHandled) return;
    const pending = this.#pending;
    if (pending && id > pending.barrier.checkpointId) {
      this.#abortPending({ code: 'CHECKPOINT_DECLINED_SUBSUMED', message: `barrier of checkpoint ${id} arrived before checkpoint ${pending.barrier.checkpointId} was aligned` });
    }
    if (this.#seen[channel]) return;
    this.#seen[channel] = 1;
    this.#seenCount++;
    this.#pending ??= this.#begin(barrier);
    this.#state = this.#state.barrierReceived(this.#controller, channel, barrier);
  }

  onCancelBarrier(checkpointId: number): void {
    if (this.#pending?.barrier.checkpointId === checkpointId) this.#abortPending({ code: 'CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER', message: `checkpoint ${checkpointId} was cancelled upstream` });
    else if (checkpointId > this.#lastHandled) this.#lastHandled = checkpointId;
  }

  /** The coordinator aborted a checkpoint: stop aligning for it. */
  abort(checkpointId: number, reason: string): void {
    if (this.#pending?.barrier.checkpointId === checkpointId) this.#abortPending({ code: 'CHECKPOINT_COORDINATOR_SUSPEND', message: reason });
  }

  /** Run by the task when the aligned timeout may have passed: the state may switch to unaligned. */
  checkTimeout(): void {
    this.#state = this.#state.alignedCheckpointTimeout(this.#controller);
  }

  /** `channel` delivered its end of data: noted, and the state told (it stays in every checkpoint). */
  onEndOfPartition(channel: number): void {
    this.#ended[channel] = 1;
    this.#state = this.#state.endOfPartition(this.#controller, channel);
  }

  #begin(barrier: Barrier): PendingGateCheckpoint {
    const now = this.#clock.now();
    return { barrier, firstAt: now, startDelayMs: Math.max(0, now - barrier.timestamp), processedBytes: 0, inFlight: undefined };
  }

  #abortPending(reason: AbortReason): void {
    this.#state = this.#state.abort(this.#controller, this.#pending!.barrier.checkpointId, reason);
  }

  /** Wall-clock time may step back; a duration does not. */
  #elapsed(p: PendingGateCheckpoint): number {
    return Math.max(0, this.#clock.now() - p.firstAt);
  }

  /** The pending checkpoint is done with in this gate (snapshotted or aborted). */
  #end(p: PendingGateCheckpoint): void {
    this.#cancelTimer();
    this.#pending = undefined;
    this.#lastHandled = p.barrier.checkpointId;
    this.#seen.fill(0);
    this.#seenCount = 0;
  }

  #cancelTimer(): void {
    this.#timer?.cancel();
    this.#timer = undefined;
  }

  #makeController(): BarrierHandlerController {
    const gate = this.#gate;
    const channel = (i: number) => gate.channels[i]!;
    const pending = () => this.#pending!;
    return {
      channelCount: gate.channels.length,
      hasBarrier: (i) => this.#seen[i] === 1,
      allBarriersReceived: () => this.#seenCount === gate.channels.length,
      now: () => this.#clock.now(),
      blockChannel: (i) => gate.block(i),
      unblockAllChannels: () => gate.unblockAll(),
      startRecording: (i) => channel(i).startRecording(pending().barrier.checkpointId),
      stopRecording: (i) => channel(i).stopRecording(),
      scheduleAlignmentTimeout: (delayMs) => {
        this.#cancelTimer();
        this.#timer = this.#clock.schedule(this.#wake, delayMs);
      },
      triggerCheckpoint: () => this.#triggerAligned(pending()),
      triggerUnalignedCheckpoint: (inFlight) => this.#triggerUnaligned(pending(), inFlight),
      completeInFlight: () => this.#completeInFlight(pending()),
      abortCheckpoint: (checkpointId, reason) => this.#aborted(pending(), checkpointId, reason),
    };
  }

  #triggerAligned(p: PendingGateCheckpoint): void {
    const alignmentMs = this.#elapsed(p);
    this.#end(p);
    this.#task.triggerSnapshot(p.barrier, { alignmentMs, startDelayMs: p.startDelayMs, processedBytes: p.processedBytes });
  }

  #triggerUnaligned(p: PendingGateCheckpoint, buffers: unknown[][][]): void {
    // No more alignment to time out.
    this.#cancelTimer();
    let resolve!: (alignmentMs: number) => void;
    let reject!: (e: Error) => void;
    const complete = new Promise<number>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    complete.catch(() => {});
    p.inFlight = { resolve, reject };
    const barrier: Barrier = { ...p.barrier, options: { ...p.barrier.options, unaligned: true } };
    this.#task.triggerSnapshot(barrier, { alignmentMs: 0, startDelayMs: p.startDelayMs, processedBytes: p.processedBytes }, { buffers, complete });
  }

  #completeInFlight(p: PendingGateCheckpoint): void {
    const alignmentMs = this.#elapsed(p);
    this.#end(p);
    p.inFlight?.resolve(alignmentMs);
  }

  #aborted(p: PendingGateCheckpoint, checkpointId: number, reason: AbortReason): void {
    this.#end(p);
    p.inFlight?.reject(new CheckpointAbortedError(checkpointId, reason));
    this.#task.abortCheckpoint(checkpointId, reason);
  }
}
