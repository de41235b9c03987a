/** A checkpoint or savepoint that does not fit the job it is restored into. */
export class RestoreError extends Error {
  readonly path: string;
  /** Operators (uid and their state names) present in the snapshot but missing from the job. */
  readonly unmatched: ReadonlyArray<{ readonly uid: string; readonly name: string; readonly states: readonly string[] }>;
  constructor(path: string, message: string, unmatched: RestoreError['unmatched'] = [], options?: ErrorOptions) {
    super(`cannot restore from ${path}: ${message}`, options);
    this.name = 'RestoreError';
    this.path = path;
    this.unmatched = unmatched;
  }
}
