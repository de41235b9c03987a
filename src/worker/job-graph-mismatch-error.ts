/**
 * A TaskManager built another job graph from the job module than the JobMaster did (the module
 * depends on Math.random(), the clock, the host...). Every build may differ again, so a restart
 * cannot mend it: the job fails at once.
 */
export class JobGraphMismatchError extends Error {
  readonly unrecoverable = true;
  /** Not `taskManager`: on a SerializedError that field means the TaskManager was lost. */
  readonly taskManagerIndex: number;
  /** The fingerprint of the graph this TaskManager built. */
  readonly fingerprint: string;
  /** The fingerprint of the JobMaster's graph. */
  readonly expected: string;

  constructor(taskManager: number, fingerprint: string, expected: string) {
    super(
      `TaskManager ${taskManager} built a different job graph from the job module (fingerprint ${fingerprint}, JobMaster has ${expected}): the job's default export must build the same graph every time it runs`,
    );
    this.name = 'JobGraphMismatchError';
    this.taskManagerIndex = taskManager;
    this.fingerprint = fingerprint;
    this.expected = expected;
  }
}
