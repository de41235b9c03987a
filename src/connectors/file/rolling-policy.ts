/**
 * When a FileSink closes its in-progress part file and starts another (Flink's RollingPolicy).
 * A part file kept open across checkpoints is recorded in each checkpoint with its valid length
 * and cut back to it on restore; a rolled file is committed when the next checkpoint completes.
 * Size is checked as records are written; the intervals when a checkpoint is taken (a file
 * rolled between checkpoints would become visible only then anyway).
 */
export interface RollingPolicy {
  /** Bytes after which the part file is rolled. */
  readonly maxPartSize: number;
  /** Milliseconds after the part file was opened at which it is rolled. */
  readonly rolloverInterval: number;
  /** Milliseconds without a record after which the part file is rolled. */
  readonly inactivityInterval: number;
  /** Rolled at every checkpoint (one new file per checkpoint with output, weir's behaviour before rolling policies). */
  readonly rollOnCheckpoint: boolean;
}

/** What a rolling policy decides on. */
export interface PartFileInfo {
  readonly bytes: number;
  readonly openedAt: number;
  readonly lastWriteAt: number;
}

/** Flink's DefaultRollingPolicy defaults: 128 MiB, 60 s, 60 s. */
export const DEFAULT_ROLLING_POLICY: RollingPolicy = {
  maxPartSize: 128 * 1024 * 1024,
  rolloverInterval: 60_000,
  inactivityInterval: 60_000,
  rollOnCheckpoint: false,
};

/** Flink's DefaultRollingPolicy: size, rollover interval and inactivity, each defaulting as DEFAULT_ROLLING_POLICY. */
export function defaultRollingPolicy(options: Partial<Omit<RollingPolicy, 'rollOnCheckpoint'>> = {}): RollingPolicy {
  const policy = { ...DEFAULT_ROLLING_POLICY, ...options };
  for (const key of ['maxPartSize', 'rolloverInterval', 'inactivityInterval'] as const) {
    if (!(policy[key] > 0)) throw new RangeError(`file sink: rolling policy ${key} must be a positive number, not ${String(policy[key])}`);
  }
  return policy;
}

/** Flink's OnCheckpointRollingPolicy: a new part file for every checkpoint, nothing kept open across one. */
export function onCheckpointRollingPolicy(): RollingPolicy {
  return { maxPartSize: Infinity, rolloverInterval: Infinity, inactivityInterval: Infinity, rollOnCheckpoint: true };
}

export function shouldRollOnWrite(policy: RollingPolicy, part: PartFileInfo): boolean {
  return part.bytes >= policy.maxPartSize;
}

export function shouldRollOnCheckpoint(policy: RollingPolicy, part: PartFileInfo, now: number): boolean {
  return (
    policy.rollOnCheckpoint ||
    shouldRollOnWrite(policy, part) ||
    now - part.openedAt >= policy.rolloverInterval ||
    now - part.lastWriteAt >= policy.inactivityInterval
  );
}
