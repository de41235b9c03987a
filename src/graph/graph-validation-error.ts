/** A job graph that cannot run: names the operator (and where the user created it) and the problem. */
export class GraphValidationError extends Error {
  readonly operator: string | undefined;
  readonly location: string | undefined;
  constructor(problem: string, operator?: string, location?: string) {
    super(`${operator ? `operator '${operator}': ` : ''}${problem}${location ? ` (created at ${location})` : ''}`);
    this.name = 'GraphValidationError';
    this.operator = operator;
    this.location = location;
  }
}
