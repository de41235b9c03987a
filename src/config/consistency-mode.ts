/** The guarantee a job's checkpoints give (execution.checkpointing.mode). */
export type ConsistencyMode = 'exactly-once' | 'at-least-once' | 'at-most-once';
