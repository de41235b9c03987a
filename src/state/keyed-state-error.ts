/** Keyed state used where it cannot be: names the state and what went wrong. */
export class KeyedStateError extends Error {
  readonly stateName: string | undefined;
  constructor(message: string, stateName?: string) {
    super(message);
    this.name = 'KeyedStateError';
    this.stateName = stateName;
  }
}
