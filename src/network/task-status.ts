/** A subtask's lifecycle, as its TaskManager reports it (and the REST API shows it). */
export type TaskStatus = 'initializing' | 'running' | 'end-of-data' | 'finished' | 'failed' | 'canceled';
