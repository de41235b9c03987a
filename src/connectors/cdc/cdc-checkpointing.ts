/** The longest aligned phase of a CDC job's checkpoint before it switches to unaligned. */
const MAX_ALIGNED_MS = 30_000;

/**
 * A CDC job's default aligned-checkpoint timeout (Source.defaultAlignedCheckpointTimeout): a
 * quarter of the checkpoint timeout, at most 30 s. A snapshot makes the sink the bottleneck for
 * minutes; a checkpoint whose barriers wait behind its buffers switches to unaligned while three
 * quarters of its time are left to store the in-flight records, instead of expiring.
 */
export function cdcAlignedCheckpointTimeout(checkpointTimeoutMs: number): number {
  return Math.max(1, Math.min(MAX_ALIGNED_MS, Math.floor(checkpointTimeoutMs / 4)));
}
