import type { Compiled, CompileScope } from './compiled-expression.ts';
import { ExactDecimal } from './exact-decimal.ts';
import { isApproximate, isInteger, type SqlType } from './sql-type.ts';

/**
 * Code converting a value of one type to another the type checker chose (a common type, an
 * argument's type): widening of numbers, instants and local timestamps. Not CAST: no conversion
 * here can fail.
 */
export function coerce(c: Compiled, to: SqlType, scope?: CompileScope): string {
  const from = c.type;
  // A literal becomes a constant of the generated function, not a conversion per row.
  if (scope && to.kind === 'DECIMAL' && (typeof c.constant === 'number' || typeof c.constant === 'bigint' || typeof c.constant === 'string') && from.kind !== 'STRING') {
    const d = typeof c.constant === 'string' ? ExactDecimal.parse(c.constant) : ExactDecimal.fromInteger(c.constant);
    if (d) return scope.constant(d);
  }
  if (from.kind === 'NULL') return 'null';
  if (from.kind === to.kind || to.kind === 'OTHER') return c.code;
  if (to.kind === 'DECIMAL') return `rt.dec(${c.code})`;
  if (to.kind === 'BIGINT') return `rt.big(${c.code})`;
  if (to.kind === 'DOUBLE' || to.kind === 'FLOAT') return from.kind === 'DECIMAL' || from.kind === 'BIGINT' ? `rt.num(${c.code})` : c.code;
  if (isInteger(to) && isInteger(from)) return c.code;
  if (to.kind === 'STRING') return `rt.str(${c.code})`;
  if (isApproximate(from) && isInteger(to)) return `rt.toInt(${c.code})`;
  return c.code;
}
