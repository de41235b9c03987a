import type { CheckpointMetadata } from '../checkpoint/checkpoint-metadata.ts';

export interface CompletedCheckpoint {
  readonly id: number;
  readonly type: 'checkpoint' | 'savepoint';
  /** Directory holding `_metadata` and the state files. */
  readonly directory: string;
  readonly triggeredAt: number;
  readonly completedAt: number;
  readonly stateBytes: number;
  readonly metadata: CheckpointMetadata;
}
