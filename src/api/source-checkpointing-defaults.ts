import type { WeirConfig } from '../config/configuration.ts';
import type { Transformation } from './transformation.ts';

const UNALIGNED = 'execution.checkpointing.unaligned.enabled';
const ALIGNED_TIMEOUT = 'execution.checkpointing.aligned-checkpoint-timeout';

/**
 * A job with a source that asks for it (CDC: Source.defaultAlignedCheckpointTimeout) gets
 * unaligned checkpoints that start aligned and switch after that source's timeout, below the
 * checkpoint timeout, so a checkpoint stuck behind a backpressured sink switches instead of
 * expiring. Only when no layer of settings names either key (the user's choice wins, `false`
 * included), checkpointing is on, and the mode allows unaligned checkpoints (exactly-once, one
 * checkpoint at a time). Several such sources: the shortest timeout.
 */
export function withSourceCheckpointingDefaults(config: WeirConfig, layers: ReadonlyArray<Readonly<Record<string, unknown>> | undefined>, transformations: readonly Transformation[]): WeirConfig {
  if (layers.some((l) => l !== undefined && (Object.hasOwn(l, UNALIGNED) || Object.hasOwn(l, ALIGNED_TIMEOUT)))) return config;
  if (config['execution.checkpointing.interval'] === null || config['execution.checkpointing.mode'] !== 'exactly-once' || config['execution.checkpointing.max-concurrent-checkpoints'] !== 1) return config;
  const timeout = config['execution.checkpointing.timeout'];
  let aligned: number | undefined;
  for (const t of transformations) {
    if (t.spec.kind !== 'source') continue;
    const wanted = t.spec.source.defaultAlignedCheckpointTimeout?.(timeout);
    if (wanted !== undefined) aligned = Math.min(aligned ?? wanted, wanted);
  }
  if (aligned === undefined) return config;
  // At least 1 ms: 0 would mean unaligned from the start.
  return { ...config, [UNALIGNED]: true, [ALIGNED_TIMEOUT]: Math.max(1, Math.min(aligned, timeout - 1)) };
}
