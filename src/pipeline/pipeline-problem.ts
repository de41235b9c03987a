import type { ExpressionError } from './expression/expression-error.ts';
/**
 * What can be wrong in a pipeline file, each kind a code with its meaning (the table `weir pipeline
 * --check` users and tests match on). A problem names the file, the line and column (1-based) and
 * the key path (`sink.value.format`, `transform[1].primary-keys`) so that an editor can jump to it.
 */
export const PIPELINE_PROBLEM_CODES = {
  'yaml-syntax': 'the file is not valid YAML (or has a key twice)',
  'unknown-key': 'a key that its block does not have (with the nearest known key)',
  'wrong-type': 'a value of the wrong kind (a list where a word goes, a word where a number goes)',
  'missing-key': 'a required key is absent',
  'bad-value': 'a value of the right kind that is not allowed (out of range, not one of the choices)',
  'bad-regex': 'a table pattern that is not a regular expression',
  'transform-never-applies': 'a transform rule that can never match: an earlier rule takes every table it names (first matching rule wins)',
  'ambiguous-primary-key': 'tables routed to one sink table get different primary keys from their transform rules',
  'conflicting-keys': 'two keys that set the same thing',
  'route-cannot-hold': "tables routed to one sink table whose rows it cannot hold together: a column of one kind from one table and of another from the next (checked against the source's catalog)",
  'bad-expression': "a projection or filter that does not compile: its syntax, a function, or a column the source table does not have (checked against the source's catalog when it can be reached)",
} as const;

export type PipelineProblemCode = keyof typeof PIPELINE_PROBLEM_CODES;

/** Where in the file: 1-based line and column, and the path of the key. */
export interface ProblemPlace {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly path: string;
}

/** One problem of a pipeline file. */
export class PipelineProblem extends Error {
  readonly code: PipelineProblemCode;
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly path: string;
  readonly problem: string;
  constructor(code: PipelineProblemCode, place: ProblemPlace, problem: string, options: { cause?: unknown } = {}) {
    const what = place.path ? `${place.path}: ` : '';
    super(`${place.file}:${place.line}:${place.column}: ${what}${problem}`, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'PipelineProblem';
    this.code = code;
    this.file = place.file;
    this.line = place.line;
    this.column = place.column;
    this.path = place.path;
    this.problem = problem;
  }
}

export class YamlSyntaxProblem extends PipelineProblem {
  readonly yamlCode: string;
  constructor(place: ProblemPlace, message: string, yamlCode: string) {
    super('yaml-syntax', place, message);
    this.name = 'YamlSyntaxProblem';
    this.yamlCode = yamlCode;
  }
}

export class UnknownKeyProblem extends PipelineProblem {
  readonly key: string;
  /** The nearest known key, when one is close. */
  readonly suggestion: string | undefined;
  constructor(place: ProblemPlace, key: string, block: string, suggestion: string | undefined) {
    super('unknown-key', place, `unknown key '${key}' in ${block}${suggestion ? ` (did you mean ${suggestion}?)` : ''}`);
    this.name = 'UnknownKeyProblem';
    this.key = key;
    this.suggestion = suggestion;
  }
}

export class WrongTypeProblem extends PipelineProblem {
  readonly expected: string;
  readonly actual: string;
  constructor(place: ProblemPlace, expected: string, actual: string) {
    super('wrong-type', place, `expected ${expected}, got ${actual}`);
    this.name = 'WrongTypeProblem';
    this.expected = expected;
    this.actual = actual;
  }
}

export class MissingKeyProblem extends PipelineProblem {
  readonly key: string;
  constructor(place: ProblemPlace, key: string, why: string) {
    super('missing-key', place, `'${key}' is required${why ? `: ${why}` : ''}`);
    this.name = 'MissingKeyProblem';
    this.key = key;
  }
}

export class BadValueProblem extends PipelineProblem {
  constructor(place: ProblemPlace, problem: string, cause?: unknown) {
    super('bad-value', place, problem, { cause });
    this.name = 'BadValueProblem';
  }
}

export class BadRegexProblem extends PipelineProblem {
  readonly pattern: string;
  constructor(place: ProblemPlace, pattern: string, cause: unknown) {
    super('bad-regex', place, `'${pattern}' is not a regular expression: ${(cause as Error).message}. A '.' separates database, schema and table; write '\\.' for "any character"`, { cause });
    this.name = 'BadRegexProblem';
    this.pattern = pattern;
  }
}

export class TransformNeverAppliesProblem extends PipelineProblem {
  readonly rule: number;
  readonly shadowedBy: number;
  constructor(place: ProblemPlace, rule: number, shadowedBy: number, table: string) {
    super('transform-never-applies', place, `transform rule ${rule + 1} never applies: rule ${shadowedBy + 1} matches ${table} first (the first matching rule wins; put the narrower rule first)`);
    this.name = 'TransformNeverAppliesProblem';
    this.rule = rule;
    this.shadowedBy = shadowedBy;
  }
}

export class AmbiguousPrimaryKeyProblem extends PipelineProblem {
  readonly sinkTable: string;
  readonly keys: readonly (readonly string[])[];
  constructor(place: ProblemPlace, sinkTable: string, claims: readonly { table: string; rule: number; keys: readonly string[] }[]) {
    const list = claims.map((c) => `${c.table} gets (${c.keys.join(', ')}) from transform rule ${c.rule + 1}`).join('; ');
    super('ambiguous-primary-key', place, `sink table ${sinkTable} would have two primary keys: ${list}`);
    this.name = 'AmbiguousPrimaryKeyProblem';
    this.sinkTable = sinkTable;
    this.keys = claims.map((c) => c.keys);
  }
}

export class BadExpressionProblem extends PipelineProblem {
  readonly rule: number;
  /** The source table it was compiled for; undefined when checked without the source's catalog. */
  readonly table: string | undefined;
  constructor(place: ProblemPlace, rule: number, table: string | undefined, cause: ExpressionError) {
    super('bad-expression', place, `transform rule ${rule + 1}${table ? ` (table ${table})` : ''}: ${cause.part} '${cause.expression}': ${cause.detail}`, { cause });
    this.name = 'BadExpressionProblem';
    this.rule = rule;
    this.table = table;
  }
}

export class RouteCannotHoldProblem extends PipelineProblem {
  readonly rule: number;
  readonly sinkTable: string;
  readonly sinkColumn: string;
  constructor(place: ProblemPlace, rule: number, sinkTable: string, column: string, claims: readonly { table: string; type: string }[]) {
    super('route-cannot-hold', place, `route rule ${rule + 1}: sink table ${sinkTable} cannot hold the rows of ${claims.map((c) => c.table).join(' and ')}: column ${column} is ${claims.map((c) => `${c.type} in ${c.table}`).join(' but ')} (cast it in a transform rule, or route the tables apart)`);
    this.name = 'RouteCannotHoldProblem';
    this.rule = rule;
    this.sinkTable = sinkTable;
    this.sinkColumn = column;
  }
}

export class ConflictingKeysProblem extends PipelineProblem {
  constructor(place: ProblemPlace, key: string, other: string) {
    super('conflicting-keys', place, `'${key}' and '${other}' set the same thing: keep one`);
    this.name = 'ConflictingKeysProblem';
  }
}

/** A pipeline file with problems: all of them, in the order of the file. */
export class PipelineCheckError extends Error {
  readonly file: string;
  readonly problems: readonly PipelineProblem[];
  constructor(file: string, problems: readonly PipelineProblem[]) {
    super(`${file}: ${problems.length} problem${problems.length === 1 ? '' : 's'}:\n${problems.map((p) => p.message).join('\n')}`);
    this.name = 'PipelineCheckError';
    this.file = file;
    this.problems = problems;
  }
}
