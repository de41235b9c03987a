/**
 * Two streams that cannot be connected as asked, found while the job is built: names the operator
 * and the line of the job module that asked for it.
 */
export class StreamConnectionError extends TypeError {
  readonly operator: string;
  readonly location: string | undefined;

  constructor(operator: string, problem: string, location: string | undefined) {
    super(`operator '${operator}': ${problem}${location ? ` (at ${location})` : ''}`);
    this.name = 'StreamConnectionError';
    this.operator = operator;
    this.location = location;
  }
}
