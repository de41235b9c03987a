/** A time to live that a state cannot have: names the state and why. A mistake of the job's code, so no restart fixes it. */
export class StateTtlError extends Error {
  readonly unrecoverable = true;
  readonly stateName: string;
  constructor(stateName: string, message: string) {
    super(message);
    this.name = 'StateTtlError';
    this.stateName = stateName;
  }
}
