/**
 * What a receiving subtask lets each of its channels hold (Flink's BufferDebloater, FLIP-183):
 * the bytes it consumes in `targetMs`, from its measured throughput averaged over `samples`
 * periods, shared by its channels. A channel keeps whole segments while that is at least two of
 * them; below that it keeps two segments, published as soon as they hold their share of it (down
 * to `minFillBytes`), so a small budget still flows instead of waiting to fill a large segment.
 * What a channel holds beyond its segments (heldBeyond) counts against the bytes too. Before the
 * first measurement a channel holds two whole segments' bytes.
 */
export interface DebloatSettings {
  readonly targetMs: number;
  readonly samples: number;
  /** Segments of each channel's ring, and their payload bytes. */
  readonly segments: number;
  readonly segmentPayload: number;
  readonly minFillBytes: number;
  /**
   * Buffers of the budget's size that a channel holds ahead of a barrier beyond the budget's
   * segments (default 0): a ring's reader decodes a segment into its input channel and frees it
   * at once; a channel within one TaskManager keeps a backlog and the batch being filled at its
   * sender. They count against the bytes the target allows, or the barrier waits for them too.
   */
  readonly heldBeyond?: number;
}

/** A channel's budget: segments in flight and bytes per segment. */
export interface ChannelBudget {
  readonly segments: number;
  readonly fillBytes: number;
}

export class BufferDebloater {
  readonly #s: DebloatSettings;
  readonly #beyond: number;
  /** Bytes per second, averaged; undefined before the first measurement. */
  #throughput: number | undefined;

  constructor(settings: DebloatSettings) {
    this.#s = settings;
    this.#beyond = settings.heldBeyond ?? 0;
  }

  /** Bytes per second as averaged so far. */
  get throughput(): number | undefined {
    return this.#throughput;
  }

  /** One period's measurement: `bytes` consumed by the subtask in `elapsedMs` over `channels` channels. */
  update(bytes: number, elapsedMs: number, channels: number): ChannelBudget {
    if (elapsedMs > 0) {
      const measured = (bytes * 1000) / elapsedMs;
      const alpha = 2 / (this.#s.samples + 1);
      this.#throughput = this.#throughput === undefined ? measured : this.#throughput + alpha * (measured - this.#throughput);
    }
    return this.budgetFor(channels);
  }

  /** What a channel with `budget` holds ahead of a barrier at most: its segments and what it holds beyond them. */
  heldAhead(budget: ChannelBudget): number {
    return (budget.segments + this.#beyond) * budget.fillBytes;
  }

  budgetFor(channels: number): ChannelBudget {
    const { segments, segmentPayload, minFillBytes, targetMs } = this.#s;
    const beyond = this.#beyond;
    // Nothing measured yet: two whole segments' bytes, not the whole ring. A job that starts under
    // backpressure would otherwise fill every ring before the first period, and its first aligned
    // checkpoints would wait for all of that at the slow consumer's pace (seconds per hop) however
    // small the budgets become afterwards. Two segments still flow at full speed while it is measured.
    const perChannel = this.#throughput === undefined ? 2 * segmentPayload : (this.#throughput * targetMs) / 1000 / Math.max(1, channels);
    if (perChannel >= (segments + beyond) * segmentPayload) return { segments, fillBytes: segmentPayload };
    const whole = Math.ceil(perChannel / segmentPayload) - beyond;
    if (whole >= 2) return { segments: whole, fillBytes: segmentPayload };
    const two = Math.min(2, segments);
    return { segments: two, fillBytes: Math.max(minFillBytes, Math.min(segmentPayload, Math.floor(perChannel / (two + beyond)))) };
  }
}
