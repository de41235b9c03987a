import { MIN_WATERMARK } from '../api/watermark.ts';

/** Where a valve's decisions go: the task's watermark and whether its input as a whole is idle. */
export interface ValveOutput {
  emitWatermark(watermark: number): void;
  emitWatermarkStatus(idle: boolean): void;
}

interface ChannelState {
  watermark: number;
  idle: boolean;
  /**
   * Whether the channel takes part in the minimum: active, and caught up with the valve's output.
   * A channel that comes back from idle behind the output must catch up first, so that the
   * output never goes back.
   */
  aligned: boolean;
}

/**
 * A task's input watermark from its channels' watermarks (Flink's StatusWatermarkValve): the
 * minimum over the active channels, emitted only when it advances. An idle channel does not hold
 * the others back; when every channel is idle the task's input is idle too, and the highest
 * watermark any channel has reached is let through first (nothing more will come from below it).
 */
export class StatusWatermarkValve {
  readonly #channels: ChannelState[];
  readonly #output: ValveOutput;
  #lastWatermark = MIN_WATERMARK;
  #idle = false;

  constructor(channels: number, output: ValveOutput) {
    this.#channels = Array.from({ length: channels }, () => ({ watermark: MIN_WATERMARK, idle: false, aligned: true }));
    this.#output = output;
  }

  /** The watermark emitted last: the task's current input watermark. */
  get watermark(): number {
    return this.#lastWatermark;
  }

  get idle(): boolean {
    return this.#idle;
  }

  /** Each channel's watermark and status, for the REST view of who holds the task back. */
  channels(): ReadonlyArray<{ readonly watermark: number; readonly idle: boolean }> {
    return this.#channels.map((c) => ({ watermark: c.watermark, idle: c.idle }));
  }

  inputWatermark(channel: number, watermark: number): void {
    const c = this.#channels[channel]!;
    // A watermark from a channel marked idle is not expected (its producer says it is active
    // first); Flink ignores it too.
    if (c.idle || watermark <= c.watermark) return;
    c.watermark = watermark;
    if (!c.aligned && watermark >= this.#lastWatermark) c.aligned = true;
    this.#emitMinOfAligned();
  }

  inputWatermarkStatus(channel: number, idle: boolean): void {
    const c = this.#channels[channel]!;
    if (idle === c.idle) return;
    if (idle) {
      c.idle = true;
      c.aligned = false;
      if (this.#channels.every((x) => x.idle)) {
        // Everything is idle: the furthest any channel got is safe to let through.
        this.#emitIfAhead(Math.max(...this.#channels.map((x) => x.watermark)));
        this.#setIdle(true);
      } else {
        this.#emitMinOfAligned();
      }
      return;
    }
    c.idle = false;
    if (c.watermark >= this.#lastWatermark) c.aligned = true;
    this.#setIdle(false);
  }

  #emitMinOfAligned(): void {
    let min = Infinity;
    let any = false;
    for (const c of this.#channels) {
      if (!c.aligned) continue;
      any = true;
      if (c.watermark < min) min = c.watermark;
    }
    if (any) this.#emitIfAhead(min);
  }

  #emitIfAhead(watermark: number): void {
    if (watermark <= this.#lastWatermark) return;
    this.#lastWatermark = watermark;
    this.#output.emitWatermark(watermark);
  }

  #setIdle(idle: boolean): void {
    if (this.#idle === idle) return;
    this.#idle = idle;
    this.#output.emitWatermarkStatus(idle);
  }
}
