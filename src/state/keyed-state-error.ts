/** Keyed state used where it cannot be: names the state and what went wrong. */
export class KeyedStateError extends Error {
  /** A mistake of the job's code (state outside a keyed record, a key selector that is not deterministic, one name for two kinds): a restart repeats it. */
  readonly unrecoverable = true;
  readonly stateName: string | undefined;
  constructor(message: string, stateName?: string) {
    super(message);
    this.name = 'KeyedStateError';
    this.stateName = stateName;
  }
}
