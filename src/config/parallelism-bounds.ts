/**
 * Flink's bounds on parallelism: key groups are what a job's keyed state is split by, and there
 * are maxParallelism of them, at most 2^15 (KeyGroupRangeAssignment.UPPER_BOUND_MAX_PARALLELISM).
 */
export const DEFAULT_MAX_PARALLELISM = 128;
export const UPPER_BOUND_MAX_PARALLELISM = 32768;
