/**
 * What a receiving subtask lets each of its channels hold (Flink's BufferDebloater, FLIP-183):
 * the bytes it consumes in `targetMs`, from its measured throughput averaged over `samples`
 * periods, shared by its channels. A channel keeps whole segments while that is at least two of
 * them; below that it keeps two segments, published as soon as they hold half of it each (down
 * to `minFillBytes`), so a small budget still flows instead of waiting to fill a large segment.
 */
export interface DebloatSettings {
  readonly targetMs: number;
  readonly samples: number;
  /** Segments of each channel's ring, and their payload bytes. */
  readonly segments: number;
  readonly segmentPayload: number;
  readonly minFillBytes: number;
}

/** A channel's budget: segments in flight and bytes per segment. */
export interface ChannelBudget {
  readonly segments: number;
  readonly fillBytes: number;
}

export class BufferDebloater {
  readonly #s: DebloatSettings;
  /** Bytes per second, averaged; undefined before the first measurement. */
  #throughput: number | undefined;

  constructor(settings: DebloatSettings) {
    this.#s = settings;
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

  budgetFor(channels: number): ChannelBudget {
    const { segments, segmentPayload, minFillBytes, targetMs } = this.#s;
    if (this.#throughput === undefined) return { segments, fillBytes: segmentPayload };
    const perChannel = (this.#throughput * targetMs) / 1000 / Math.max(1, channels);
    if (perChannel >= segments * segmentPayload) return { segments, fillBytes: segmentPayload };
    if (perChannel >= 2 * segmentPayload) return { segments: Math.ceil(perChannel / segmentPayload), fillBytes: segmentPayload };
    return { segments: Math.min(2, segments), fillBytes: Math.max(minFillBytes, Math.min(segmentPayload, Math.floor(perChannel / 2))) };
  }
}
