import type { Barrier } from '../network/stream-event.ts';
import type { InputGate } from './input-gate.ts';

/** What the barrier handler asks of its task. */
export interface BarrierController {
  /** All barriers of a checkpoint are in (aligned) or counted (at-least-once): snapshot now. */
  triggerSnapshot(barrier: Barrier, alignment: AlignmentFigures): void;
  /** The checkpoint cannot complete in this task (a newer barrier overtook it, or it was cancelled). */
  abortCheckpoint(checkpointId: number, reason: string): void;
}

export interface AlignmentFigures {
  readonly alignmentMs: number;
  readonly startDelayMs: number;
  /** Bytes of records taken from not-yet-aligned channels while aligning. */
  readonly processedBytes: number;
}

interface PendingAlignment {
  readonly barrier: Barrier;
  count: number;
  readonly firstAt: number;
  readonly startDelayMs: number;
  processedBytes: number;
}

export type BarrierMode = 'aligned' | 'at-least-once';

/**
 * Barrier handling for one input gate, as one state machine: waiting for the first barrier of a
 * checkpoint, or collecting the rest. Aligned mode holds back every channel whose barrier has
 * arrived (the seed's Sum1/Sum2 walk-through); at-least-once mode only counts.
 */
export class BarrierHandler {
  readonly #gate: InputGate;
  readonly #mode: BarrierMode;
  readonly #controller: BarrierController;
  readonly #seen: Uint8Array;
  #pending: PendingAlignment | undefined;
  /** The newest checkpoint this gate has finished with (snapshotted or aborted). */
  #lastHandled = 0;

  constructor(gate: InputGate, mode: BarrierMode, controller: BarrierController) {
    this.#gate = gate;
    this.#mode = mode;
    this.#controller = controller;
    this.#seen = new Uint8Array(gate.channels.length);
  }

  /** Which checkpoint is aligning, and which channels it still waits for (for checkpoint reasons). */
  describe(): string | undefined {
    const p = this.#pending;
    if (!p) return undefined;
    const waiting = this.#gate.channels.filter((_, i) => !this.#seen[i]).map((c) => c.description);
    const verb = this.#mode === 'aligned' ? 'aligning' : 'collecting barriers of';
    return `${verb} checkpoint ${p.barrier.checkpointId} for ${Math.round(performance.now() - p.firstAt)} ms, waiting for the barrier on ${waiting.join(', ')}`;
  }

  get pendingCheckpoint(): number | undefined {
    return this.#pending?.barrier.checkpointId;
  }

  /** Counts bytes taken from open channels during alignment (Flink's "processed in-flight data"). */
  noteProcessed(bytes: number): void {
    if (this.#pending) this.#pending.processedBytes += bytes;
  }

  onBarrier(channel: number, barrier: Barrier): void {
    const id = barrier.checkpointId;
    if (id <= this.#lastHandled) return;
    let p = this.#pending;
    if (p && id > p.barrier.checkpointId) {
      this.#abortPending(`barrier of checkpoint ${id} arrived before checkpoint ${p.barrier.checkpointId} was aligned`);
      p = undefined;
    }
    if (!p) {
      const now = performance.now();
      p = { barrier, count: 0, firstAt: now, startDelayMs: Math.max(0, Date.now() - barrier.timestamp), processedBytes: 0 };
      this.#pending = p;
    }
    if (this.#seen[channel]) return;
    this.#seen[channel] = 1;
    p.count++;
    if (this.#mode === 'aligned') this.#gate.block(channel);
    if (p.count === this.#seen.length) this.#complete(p);
  }

  onCancelBarrier(checkpointId: number): void {
    if (this.#pending?.barrier.checkpointId === checkpointId) this.#abortPending(`checkpoint ${checkpointId} was cancelled upstream`);
    else if (checkpointId > this.#lastHandled) this.#lastHandled = checkpointId;
  }

  /** The coordinator aborted a checkpoint: stop aligning for it. */
  abort(checkpointId: number, reason: string): void {
    if (this.#pending?.barrier.checkpointId === checkpointId) this.#abortPending(reason);
  }

  #complete(p: PendingAlignment): void {
    this.#reset(p.barrier.checkpointId);
    this.#controller.triggerSnapshot(p.barrier, {
      alignmentMs: performance.now() - p.firstAt,
      startDelayMs: p.startDelayMs,
      processedBytes: p.processedBytes,
    });
  }

  #abortPending(reason: string): void {
    const id = this.#pending!.barrier.checkpointId;
    this.#reset(id);
    this.#controller.abortCheckpoint(id, reason);
  }

  #reset(handled: number): void {
    this.#pending = undefined;
    this.#lastHandled = handled;
    this.#seen.fill(0);
    this.#gate.unblockAll();
  }
}
