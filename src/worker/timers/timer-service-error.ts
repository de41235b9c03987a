/** A timer was asked for where there can be none: outside a keyed stream, or with no key current (open, close). */
export class TimerServiceError extends Error {
  readonly operator: string;
  /** The same records fail the same way after a restart: the job fails at once. */
  readonly unrecoverable = true;
  readonly uid: string;

  constructor(operator: string, uid: string, problem: string) {
    super(`operator '${operator}' (uid ${uid}): ${problem}`);
    this.name = 'TimerServiceError';
    this.operator = operator;
    this.uid = uid;
  }
}
