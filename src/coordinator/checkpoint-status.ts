/** Where a checkpoint or savepoint is in its life (Flink's CheckpointStatsStatus). */
export type CheckpointStatus = 'IN_PROGRESS' | 'COMPLETED' | 'FAILED';
