/** An exception thrown by user code or an operator, with the facts of where it happened. */
export class OperatorFailure extends Error {
  readonly operator: string;
  readonly uid: string;
  readonly vertex: string;
  readonly subtask: number;
  /** The cause says the job cannot run as defined (it would fail the same way after a restart). */
  readonly unrecoverable: boolean;

  constructor(cause: unknown, operator: string, uid: string, vertex: string, subtask: number, parallelism: number) {
    const reason = cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause);
    super(`operator '${operator}' (uid ${uid}) failed in subtask ${subtask + 1}/${parallelism} of '${vertex}': ${reason}`, { cause });
    this.name = 'OperatorFailure';
    this.operator = operator;
    this.uid = uid;
    this.vertex = vertex;
    this.subtask = subtask;
    this.unrecoverable = (cause as { unrecoverable?: unknown } | null)?.unrecoverable === true;
    if (cause instanceof Error && cause.stack) this.stack = `${this.name}: ${this.message}\nCaused by: ${cause.stack}`;
  }
}
