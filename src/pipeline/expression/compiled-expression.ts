import type { ExpressionErrorCode } from './expression-error.ts';
import type { AstNode } from './expression-source.ts';
import type { SqlType } from './sql-type.ts';

/** A checked sub-expression: JS code computing its run-time value, and its type. */
export interface Compiled {
  readonly code: string;
  readonly type: SqlType;
  /** Set for literals: the value, so functions can check constant arguments (date patterns, units) at compile time. */
  readonly constant?: unknown;
}

/** What a name in an expression is bound to. */
export interface ColumnBinding {
  readonly code: string;
  readonly type: SqlType;
}

/**
 * What compiling needs around a node: name resolution, constants and temporaries of the generated
 * function, and errors placed at a node.
 */
export interface CompileScope {
  resolve(name: string): ColumnBinding | undefined;
  /** A constant of the generated function (a RegExp, a Set): the code naming it. */
  constant(value: unknown): string;
  /** A fresh temporary variable of the generated function. */
  temp(): string;
  fail(code: ExpressionErrorCode, node: AstNode, detail: string): never;
}
