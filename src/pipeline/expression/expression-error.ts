/** Why an expression was refused; the codes are documented in docs/pipeline-expressions.md. */
export const EXPRESSION_ERROR_CODES = {
  'syntax': 'the expression does not parse',
  'unknown-column': 'a column that is neither in the source table, nor a metadata column, nor an earlier alias',
  'unknown-function': 'a function that is not in the table of functions',
  'wrong-arguments': 'a function called with a number or types of arguments it does not take',
  'type-mismatch': 'operands whose types cannot be compared or combined',
  'unsupported': 'a construct of SQL that transforms do not support',
  'duplicate-column': 'two projected columns with the same name',
  'reserved-name': 'an alias that shadows a metadata column',
} as const;

export type ExpressionErrorCode = keyof typeof EXPRESSION_ERROR_CODES;

/** Where in the expression's own text (1-based line and column, 0-based offset); the YAML layer adds the file's position. */
export interface ExpressionPosition {
  readonly offset: number;
  readonly line: number;
  readonly column: number;
}

/** A projection or filter refused at compile time, naming the rule, the expression and where in it. */
export class ExpressionError extends Error {
  readonly code: ExpressionErrorCode;
  /** 'projection' or 'filter'. */
  readonly part: 'projection' | 'filter';
  readonly expression: string;
  /** Index of the transform rule (0-based) when the caller gave one. */
  readonly ruleIndex: number | undefined;
  readonly position: ExpressionPosition | undefined;
  readonly detail: string;
  /** The same rule fails the same way on every restart (a table created later without a column the rule names). */
  readonly unrecoverable = true;

  constructor(fields: {
    code: ExpressionErrorCode;
    part: 'projection' | 'filter';
    expression: string;
    ruleIndex?: number;
    position?: ExpressionPosition;
    detail: string;
    cause?: unknown;
  }) {
    const where = fields.position ? ` at line ${fields.position.line}, column ${fields.position.column}` : '';
    const rule = fields.ruleIndex !== undefined ? `transform rule ${fields.ruleIndex + 1}, ` : '';
    super(`${rule}${fields.part} '${fields.expression}'${where}: ${fields.detail}`, fields.cause !== undefined ? { cause: fields.cause } : undefined);
    this.name = 'ExpressionError';
    this.code = fields.code;
    this.part = fields.part;
    this.expression = fields.expression;
    this.ruleIndex = fields.ruleIndex;
    this.position = fields.position;
    this.detail = fields.detail;
  }
}

/** A row an expression cannot be evaluated on (division by zero, a CAST out of range, a text that is no date). */
export class ExpressionEvaluationError extends Error {
  readonly reason: string;
  constructor(reason: string, detail: string) {
    super(`expression evaluation failed (${reason}): ${detail}`);
    this.name = 'ExpressionEvaluationError';
    this.reason = reason;
  }
}
