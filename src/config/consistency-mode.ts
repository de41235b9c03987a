/** The guarantees a job's checkpoints can give (execution.checkpointing.mode). */
export const CONSISTENCY_MODES = ['exactly-once', 'at-least-once', 'at-most-once'] as const;

export type ConsistencyMode = (typeof CONSISTENCY_MODES)[number];
