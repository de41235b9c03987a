import type { Barrier } from '../network/stream-event.ts';
import type { InputGate } from './input-gate.ts';
import type { BarrierController } from './checkpointing/barrier-controller.ts';
import type { BarrierMode } from './checkpointing/barrier-mode.ts';

interface PendingCheckpoint {
  readonly barrier: Barrier;
  count: number;
  readonly firstAt: number;
  readonly startDelayMs: number;
  processedBytes: number;
  /** Set once this checkpoint runs unaligned (from the start, or after the aligned timeout). */
  unaligned: { readonly buffers: unknown[][][]; resolve: (alignmentMs: number) => void; reject: (e: Error) => void } | undefined;
  timer: NodeJS.Timeout | undefined;
}

/**
 * Barrier handling for one input gate, one checkpoint at a time. Aligned: a channel whose barrier
 * has arrived is held back until all have (the seed's Sum1/Sum2 walk-through); at-least-once: only
 * counted. Unaligned: the first barrier triggers the snapshot at once and every record that the
 * barriers overtook is captured as channel state. An aligned checkpoint with a timeout switches to
 * unaligned when it has waited too long.
 */
export class BarrierHandler {
  readonly #gate: InputGate;
  readonly #mode: BarrierMode;
  readonly #controller: BarrierController;
  readonly #seen: Uint8Array;
  readonly #onTimeout: () => void;
  #pending: PendingCheckpoint | undefined;
  /** The newest checkpoint this gate has finished with (snapshotted or aborted). */
  #lastHandled = 0;

  /** `wake` is called when the aligned timeout fires, so the task runs the switch in its loop. */
  constructor(gate: InputGate, mode: BarrierMode, controller: BarrierController, wake: () => void = () => {}) {
    this.#gate = gate;
    this.#mode = mode;
    this.#controller = controller;
    this.#seen = new Uint8Array(gate.channels.length);
    this.#onTimeout = wake;
  }

  /** Which checkpoint is aligning, and which channels it still waits for (for checkpoint reasons). */
  describe(): string | undefined {
    const p = this.#pending;
    if (!p) return undefined;
    const waiting = this.#gate.channels.filter((_, i) => !this.#seen[i]).map((c) => c.description);
    const verb = p.unaligned ? 'collecting in-flight data of unaligned' : this.#mode === 'aligned' ? 'aligning' : 'collecting barriers of';
    return `${verb} checkpoint ${p.barrier.checkpointId} for ${Math.round(performance.now() - p.firstAt)} ms, waiting for the barrier on ${waiting.join(', ')}`;
  }

  get pendingCheckpoint(): number | undefined {
    return this.#pending?.barrier.checkpointId;
  }

  /** Counts bytes taken from open channels during alignment (Flink's "processed in-flight data"). */
  noteProcessed(bytes: number): void {
    if (this.#pending && !this.#pending.unaligned) this.#pending.processedBytes += bytes;
  }

  onBarrier(channel: number, barrier: Barrier): void {
    const id = barrier.checkpointId;
    if (id <= this.#lastHandled) return;
    let p = this.#pending;
    if (p && id > p.barrier.checkpointId) {
      this.#abortPending(`barrier of checkpoint ${id} arrived before checkpoint ${p.barrier.checkpointId} was aligned`);
      p = undefined;
    }
    if (this.#seen[channel]) return;
    this.#seen[channel] = 1;
    if (!p) {
      p = {
        barrier,
        count: 0,
        firstAt: performance.now(),
        startDelayMs: Math.max(0, Date.now() - barrier.timestamp),
        processedBytes: 0,
        unaligned: undefined,
        timer: undefined,
      };
      this.#pending = p;
      if (barrier.options.unaligned) {
        this.#goUnaligned(p, channel);
      } else if (this.#mode === 'aligned' && barrier.options.alignedTimeout > 0 && this.#seen.length > 1) {
        const wait = barrier.timestamp + barrier.options.alignedTimeout - Date.now();
        // The timeout counts from the trigger (Flink: the checkpoint start delay). If it has
        // passed already, switch now: a timer could only fire after the alignment that queued
        // data delayed has completed within this same step.
        if (wait <= 0) this.#goUnaligned(p, undefined);
        else p.timer = setTimeout(this.#onTimeout, wait);
      }
    }
    else if (!p.unaligned && barrier.options.unaligned) {
      // An upstream task switched this checkpoint to unaligned: its barrier overtook what this channel queued.
      this.#goUnaligned(p, channel);
    }
    p.count++;
    if (p.unaligned) {
      this.#gate.channels[channel]!.stopRecording();
    } else if (this.#mode === 'aligned' || p.barrier.options.type === 'savepoint') {
      // Savepoints are always aligned, whatever the job's checkpointing mode.
      this.#gate.block(channel);
    }
    if (p.count === this.#seen.length) this.#complete(p);
  }

  /** Run by the task when the aligned timeout may have passed: switch this checkpoint to unaligned. */
  checkTimeout(): void {
    const p = this.#pending;
    if (!p || p.unaligned || p.barrier.options.alignedTimeout <= 0) return;
    if (Date.now() - p.barrier.timestamp < p.barrier.options.alignedTimeout) return;
    this.#goUnaligned(p, undefined);
  }

  /**
   * Takes the snapshot now and records the in-flight data: channels whose (in-order) barrier is
   * already in carry nothing of this checkpoint; the channel of a priority barrier carries all it
   * queued; the others carry what they queued and what arrives until their barrier.
   */
  #goUnaligned(p: PendingCheckpoint, priorityChannel: number | undefined): void {
    if (p.timer) clearTimeout(p.timer);
    const id = p.barrier.checkpointId;
    const buffers = this.#gate.channels.map((ch, i) => {
      if (i === priorityChannel) {
        const queued = ch.startRecording(id);
        ch.stopRecording();
        return queued;
      }
      return this.#seen[i] ? [] : ch.startRecording(id);
    });
    this.#gate.unblockAll();
    let resolve!: (alignmentMs: number) => void;
    let reject!: (e: Error) => void;
    const complete = new Promise<number>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    complete.catch(() => {});
    p.unaligned = { buffers, resolve, reject };
    const barrier: Barrier = { ...p.barrier, options: { ...p.barrier.options, unaligned: true } };
    this.#controller.triggerSnapshot(
      barrier,
      { alignmentMs: 0, startDelayMs: p.startDelayMs, processedBytes: p.processedBytes },
      { buffers, complete },
    );
  }

  onCancelBarrier(checkpointId: number): void {
    if (this.#pending?.barrier.checkpointId === checkpointId) this.#abortPending(`checkpoint ${checkpointId} was cancelled upstream`);
    else if (checkpointId > this.#lastHandled) this.#lastHandled = checkpointId;
  }

  /** The coordinator aborted a checkpoint: stop aligning for it. */
  abort(checkpointId: number, reason: string): void {
    if (this.#pending?.barrier.checkpointId === checkpointId) this.#abortPending(reason);
  }

  #complete(p: PendingCheckpoint): void {
    this.#reset(p);
    const alignmentMs = performance.now() - p.firstAt;
    if (p.unaligned) {
      p.unaligned.resolve(alignmentMs);
      return;
    }
    this.#controller.triggerSnapshot(p.barrier, { alignmentMs, startDelayMs: p.startDelayMs, processedBytes: p.processedBytes });
  }

  #abortPending(reason: string): void {
    const p = this.#pending!;
    this.#reset(p);
    p.unaligned?.reject(new Error(reason));
    this.#controller.abortCheckpoint(p.barrier.checkpointId, reason);
  }

  #reset(p: PendingCheckpoint): void {
    if (p.timer) clearTimeout(p.timer);
    for (const ch of this.#gate.channels) ch.stopRecording();
    this.#pending = undefined;
    this.#lastHandled = p.barrier.checkpointId;
    this.#seen.fill(0);
    this.#gate.unblockAll();
  }
}
