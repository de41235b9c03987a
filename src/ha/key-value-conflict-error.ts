/** A compare-and-set lost: the key was not at the revision the writer read (someone else wrote it). */
export class KeyValueConflictError extends Error {
  readonly key: string;
  /** The revision the writer expected; 0 for a create. */
  readonly expectedRevision: number;
  constructor(key: string, expectedRevision: number, options?: { cause?: unknown }) {
    super(expectedRevision === 0 ? `'${key}' exists already` : `'${key}' is no longer at revision ${expectedRevision}`, options);
    this.name = 'KeyValueConflictError';
    this.key = key;
    this.expectedRevision = expectedRevision;
  }
}
