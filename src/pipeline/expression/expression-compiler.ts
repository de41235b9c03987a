import type { Compiled, CompileScope } from './compiled-expression.ts';
import type { AstNode } from './expression-source.ts';
import { compileFunctionCall, compileCast, compileExtract } from './function-catalog.ts';
import { likeRegExp } from './runtime-library.ts';
import { asDecimal, commonType, isInteger, isNumeric, isTemporal, MAX_DECIMAL_PRECISION, T, typeText, type SqlType } from './sql-type.ts';
import { coerce } from './value-coercion.ts';

/**
 * Type checks one node of node-sql-parser's AST and gives JS code for it (see runtime-library.ts
 * for the helpers the code calls). Semantics are Flink CDC's (docs/pipeline-expressions.md):
 * comparisons are FALSE, not NULL, when an operand is NULL; AND, OR and NOT are three-valued.
 */
export function compileNode(node: AstNode, scope: CompileScope): Compiled {
  switch (node.type) {
    case 'column_ref':
      return compileColumn(node, scope);
    case 'number':
      return numberLiteral(String(node.value));
    case 'bigint':
      return numberLiteral(String(node.value));
    case 'single_quote_string':
    case 'string':
      return stringLiteral(String(node.value).replace(/''/g, "'"));
    case 'double_quote_string':
      return scope.fail('unsupported', node, `"${node.value}": strings are in single quotes, identifiers in backquotes`);
    case 'bool':
      return { code: String(node.value), type: T.boolean, constant: node.value };
    case 'null':
      return { code: 'null', type: T.null, constant: null };
    case 'date':
      return temporalLiteral(node, scope, 'DATE');
    case 'timestamp':
      return temporalLiteral(node, scope, 'TIMESTAMP');
    case 'binary_expr':
      return compileBinary(node, scope);
    case 'unary_expr':
      return compileUnary(node, scope);
    case 'case':
      return compileCase(node, scope);
    case 'cast':
      return compileCast(node, compileNode(node.expr, scope), scope);
    case 'function':
      return compileFunctionCall(node, scope, (n) => compileNode(n, scope));
    case 'extract':
      return compileExtract(node, compileNode(node.args.source, scope), scope);
    default:
      return scope.fail('unsupported', node, `${node.type} expressions are not supported in transforms`);
  }
}

function compileColumn(node: AstNode, scope: CompileScope): Compiled {
  const name = columnName(node);
  if (name === '*') return scope.fail('unsupported', node, '* stands only alone in a projection');
  const b = scope.resolve(name);
  if (!b) return scope.fail('unknown-column', node, `unknown column '${name}'`);
  return b;
}

export function columnName(node: AstNode): string {
  const c = node.column;
  return typeof c === 'string' ? c : String(c?.expr?.value ?? c);
}

function numberLiteral(text: string): Compiled {
  if (/^-?\d+$/.test(text)) {
    const v = BigInt(text);
    if (v >= -2147483648n && v <= 2147483647n) return { code: text, type: T.int, constant: Number(text) };
    if (v >= -(2n ** 63n) && v < 2n ** 63n) return { code: `${text}n`, type: T.bigint, constant: v };
    return decimalLiteral(text);
  }
  return decimalLiteral(text);
}

function decimalLiteral(text: string): Compiled {
  const [whole = '', frac = ''] = text.replace(/^-/, '').split('.');
  const scale = frac.length;
  const precision = Math.max(whole.replace(/^0+/, '').length + scale, 1);
  return { code: `rt.dec(${JSON.stringify(text)})`, type: T.decimal(precision, scale), constant: text };
}

function stringLiteral(value: string): Compiled {
  return { code: JSON.stringify(value), type: T.string, constant: value };
}

function temporalLiteral(node: AstNode, scope: CompileScope, kind: 'DATE' | 'TIMESTAMP'): Compiled {
  const text = String(node.value);
  const fn = kind === 'DATE' ? 'toDate' : 'toTimestampText';
  if (!/^\d{4}-\d\d-\d\d/.test(text)) scope.fail('syntax', node, `'${text}' is no ${kind} literal`);
  return { code: kind === 'DATE' ? `rt.${fn}(${JSON.stringify(text)})` : `rt.${fn}(${JSON.stringify(text)}, 3)`, type: kind === 'DATE' ? T.date : T.timestamp(3) };
}

// --- operators -----------------------------------------------------------------------------------

function compileBinary(node: AstNode, scope: CompileScope): Compiled {
  const op = String(node.operator).toUpperCase();
  switch (op) {
    case 'AND':
    case 'OR':
    case '&&':
      return logical(op === 'OR' ? 'OR' : 'AND', node, scope);
    case '+':
    case '-':
    case '*':
    case '/':
    case '%':
    case 'DIV':
      return arithmetic(op, node, scope);
    case '||':
      return concat(compileNode(node.left, scope), compileNode(node.right, scope));
    case '=':
    case '<>':
    case '!=':
    case '<':
    case '>':
    case '<=':
    case '>=':
      return comparison(op, node, scope);
    case 'BETWEEN':
    case 'NOT BETWEEN':
      return between(op === 'NOT BETWEEN', node, scope);
    case 'LIKE':
    case 'NOT LIKE':
      return like(op === 'NOT LIKE', node, scope);
    case 'IN':
    case 'NOT IN':
      return inList(op === 'NOT IN', node, scope);
    case 'IS':
    case 'IS NOT':
      return isTest(op === 'IS NOT', node, scope);
    default:
      return scope.fail('unsupported', node, `operator ${op} is not supported in transforms`);
  }
}

function requireBoolean(c: Compiled, node: AstNode, scope: CompileScope, what: string): string {
  if (c.type.kind !== 'BOOLEAN' && c.type.kind !== 'NULL') scope.fail('type-mismatch', node, `${what} needs a BOOLEAN, not ${typeText(c.type)}`);
  return c.code;
}

/** Three-valued AND / OR that does not evaluate the right side when the left decides. */
function logical(op: 'AND' | 'OR', node: AstNode, scope: CompileScope): Compiled {
  const a = requireBoolean(compileNode(node.left, scope), node.left, scope, op);
  const b = requireBoolean(compileNode(node.right, scope), node.right, scope, op);
  const l = scope.temp();
  const r = scope.temp();
  const decisive = op === 'AND' ? 'false' : 'true';
  const otherwise = op === 'AND' ? 'true' : 'false';
  return { code: `((${l} = ${a}) === ${decisive} ? ${decisive} : (${r} = ${b}) === ${decisive} ? ${decisive} : ${l} === null || ${r} === null ? null : ${otherwise})`, type: T.boolean };
}

const INT_HELPERS: Record<string, string> = { '+': 'iadd', '-': 'isub', '*': 'imul', '/': 'idiv', '%': 'imod', DIV: 'idiv' };
const BIG_HELPERS: Record<string, string> = { '+': 'ladd', '-': 'lsub', '*': 'lmul', '/': 'ldiv', '%': 'lmod', DIV: 'ldiv' };
const DOUBLE_HELPERS: Record<string, string> = { '+': 'dadd', '-': 'dsub', '*': 'dmul', '/': 'ddiv', '%': 'dmod', DIV: 'ddiv' };
const DECIMAL_HELPERS: Record<string, string> = { '+': 'xadd', '-': 'xsub', '*': 'xmul', '%': 'xmod' };

/** The DECIMAL type of an operation, by Flink's (Calcite's) rules, capped at 38 digits. */
export function decimalResultType(op: string, a: SqlType, b: SqlType): SqlType {
  const p1 = a.precision!, s1 = a.scale!, p2 = b.precision!, s2 = b.scale!;
  switch (op) {
    case '+':
    case '-': {
      const s = Math.max(s1, s2);
      return T.decimal(Math.max(p1 - s1, p2 - s2) + s + 1, s);
    }
    case '*':
      return T.decimal(p1 + p2, s1 + s2);
    case '%': {
      const s = Math.max(s1, s2);
      return T.decimal(Math.min(p1 - s1, p2 - s2) + s, s);
    }
    default: {
      // Division: scale max(6, s1 + p2 + 1); when the digits exceed 38, the scale gives way (not below 6).
      let s = Math.max(6, s1 + p2 + 1);
      let p = p1 - s1 + s2 + s;
      if (p > MAX_DECIMAL_PRECISION) {
        s = Math.max(6, s - (p - MAX_DECIMAL_PRECISION));
        p = MAX_DECIMAL_PRECISION;
      }
      return T.decimal(p, Math.min(s, MAX_DECIMAL_PRECISION));
    }
  }
}

function arithmetic(op: string, node: AstNode, scope: CompileScope): Compiled {
  const a = compileNode(node.left, scope);
  const b = compileNode(node.right, scope);
  if (a.type.kind === 'NULL' || b.type.kind === 'NULL') return { code: 'null', type: a.type.kind === 'NULL' ? b.type : a.type };
  if (!isNumeric(a.type) || !isNumeric(b.type)) scope.fail('type-mismatch', node, `${op} needs numbers, not ${typeText(a.type)} and ${typeText(b.type)}`);
  const common = commonType(a.type, b.type)!;
  if (common.kind === 'DOUBLE' || common.kind === 'FLOAT') return { code: `rt.${DOUBLE_HELPERS[op]}(${coerce(a, T.double)}, ${coerce(b, T.double)})`, type: T.double };
  if (common.kind === 'DECIMAL') {
    const da = asDecimal(a.type);
    const db = asDecimal(b.type);
    const type = decimalResultType(op === 'DIV' ? '/' : op, da, db);
    const x = coerce(a, da, scope);
    const y = coerce(b, db, scope);
    if (op === '/' || op === 'DIV') return { code: `rt.xdiv(${x}, ${y}, ${type.scale})`, type };
    return { code: `rt.${DECIMAL_HELPERS[op]}(${x}, ${y})`, type };
  }
  if (common.kind === 'BIGINT') return { code: `rt.${BIG_HELPERS[op]}(${coerce(a, T.bigint)}, ${coerce(b, T.bigint)})`, type: T.bigint };
  return { code: `rt.${INT_HELPERS[op]}(${a.code}, ${b.code})`, type: T.int };
}

function compileUnary(node: AstNode, scope: CompileScope): Compiled {
  const op = String(node.operator).toUpperCase();
  const a = compileNode(node.expr, scope);
  if (op === 'NOT' || op === '!') return { code: `rt.not(${requireBoolean(a, node.expr, scope, 'NOT')})`, type: T.boolean };
  if (op === '+' && isNumeric(a.type)) return a;
  if (op === '-' && isNumeric(a.type)) {
    if (a.constant !== undefined && typeof a.constant !== 'object') {
      const text = String(a.constant);
      return compileNode({ type: 'number', value: text.startsWith('-') ? text.slice(1) : `-${text}` }, scope);
    }
    const helper = a.type.kind === 'DECIMAL' ? 'xneg' : a.type.kind === 'BIGINT' ? 'lneg' : isInteger(a.type) ? 'ineg' : 'dneg';
    return { code: `rt.${helper}(${a.code})`, type: a.type };
  }
  return scope.fail('type-mismatch', node, `${op} is not defined on ${typeText(a.type)}`);
}

function toText(c: Compiled): string {
  if (c.type.kind === 'STRING' || c.type.kind === 'NULL') return c.code;
  if (c.type.kind === 'DOUBLE' || c.type.kind === 'FLOAT') return `rt.dblStr(${c.code})`;
  return `rt.str(${c.code})`;
}

/** `||`: NULL when either side is NULL (SQL's rule; Flink CDC 3.x would give the text "null"). */
function concat(a: Compiled, b: Compiled): Compiled {
  return { code: `rt.concat2(${toText(a)}, ${toText(b)})`, type: T.string };
}

/**
 * The helper comparing two values of a type (-1, 0, 1, NaN when either is NULL) after both were
 * brought to the common type.
 */
export function comparator(a: Compiled, b: Compiled, node: AstNode, scope: CompileScope): { fn: string; x: string; y: string } {
  // A string literal meets a number or a temporal value: Calcite converts the literal.
  if (a.constant !== undefined && a.type.kind === 'STRING' && b.type.kind !== 'STRING') a = literalAs(a, b.type, node, scope);
  if (b.constant !== undefined && b.type.kind === 'STRING' && a.type.kind !== 'STRING') b = literalAs(b, a.type, node, scope);
  const common = commonType(a.type, b.type);
  if (!common) return scope.fail('type-mismatch', node, `cannot compare ${typeText(a.type)} with ${typeText(b.type)}`);
  if (common.kind === 'TIMESTAMP_LTZ' && a.type.kind !== b.type.kind) {
    // An instant and a local timestamp: the local one is read in the pipeline's time zone.
    const x = a.type.kind === 'TIMESTAMP' ? `rt.localToLtz(${a.code}, x)` : a.code;
    const y = b.type.kind === 'TIMESTAMP' ? `rt.localToLtz(${b.code}, x)` : b.code;
    return { fn: 'rt.tcmp', x, y };
  }
  const x = coerce(a, common, scope);
  const y = coerce(b, common, scope);
  switch (common.kind) {
    case 'DECIMAL':
      return { fn: 'rt.xcmp', x, y };
    case 'DATE':
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
      return { fn: 'rt.tcmp', x, y };
    case 'TIME':
      return { fn: 'rt.timeCmp', x, y };
    case 'BYTES':
      return { fn: 'rt.bytesCmp', x, y };
    case 'OTHER':
      return scope.fail('type-mismatch', node, `cannot compare values of type ${typeText(common)}`);
    default:
      return { fn: 'rt.cmp', x, y };
  }
}

function literalAs(lit: Compiled, type: SqlType, node: AstNode, scope: CompileScope): Compiled {
  const text = String(lit.constant);
  if (isNumeric(type)) {
    if (!/^\s*-?(\d+\.?\d*|\.\d+)\s*$/.test(text)) scope.fail('type-mismatch', node, `'${text}' is no number to compare with ${typeText(type)}`);
    return numberLiteral(text.trim());
  }
  if (isTemporal(type)) return lit.type.kind === type.kind ? lit : { ...lit, type };
  if (type.kind === 'BOOLEAN') return { code: String(text.toLowerCase() === 'true'), type: T.boolean, constant: text.toLowerCase() === 'true' };
  return lit;
}

const TESTS: Record<string, string> = { '=': '=== 0', '<': '< 0', '>': '> 0', '<=': '<= 0', '>=': '>= 0' };

function comparison(op: string, node: AstNode, scope: CompileScope): Compiled {
  const { fn, x, y } = comparator(compileNode(node.left, scope), compileNode(node.right, scope), node, scope);
  if (op === '<>' || op === '!=') return { code: `rt.ne(${fn}(${x}, ${y}))`, type: T.boolean };
  return { code: `(${fn}(${x}, ${y}) ${TESTS[op]})`, type: T.boolean };
}

/** BETWEEN as Flink CDC: FALSE when the value is NULL; NOT BETWEEN is its negation (so TRUE then). */
function between(negated: boolean, node: AstNode, scope: CompileScope): Compiled {
  const v = compileNode(node.left, scope);
  const [loNode, hiNode] = node.right.value as AstNode[];
  const t = scope.temp();
  const held: Compiled = { code: t, type: v.type };
  const lo = comparator(held, compileNode(loNode, scope), node, scope);
  const hi = comparator(held, compileNode(hiNode, scope), node, scope);
  const test = `(${t} = ${v.code}, ${lo.fn}(${lo.x}, ${lo.y}) >= 0 && ${hi.fn}(${hi.x}, ${hi.y}) <= 0)`;
  return { code: negated ? `!${test}` : test, type: T.boolean };
}

/** LIKE with SQL's % and _ (and ESCAPE); NULL when an operand is NULL. */
function like(negated: boolean, node: AstNode, scope: CompileScope): Compiled {
  const s = compileNode(node.left, scope);
  const p = compileNode(node.right, scope);
  const escapeNode = node.right.escape?.value;
  const esc = escapeNode ? compileNode(escapeNode, scope) : undefined;
  if (s.type.kind !== 'STRING' && s.type.kind !== 'NULL') scope.fail('type-mismatch', node, `LIKE needs a string, not ${typeText(s.type)}`);
  let code: string;
  if (p.constant !== undefined && typeof p.constant === 'string' && (!esc || typeof esc.constant === 'string')) {
    code = `rt.likeRe(${s.code}, ${scope.constant(likeRegExp(p.constant, (esc?.constant as string | undefined) ?? '\\'))})`;
  } else code = `rt.like(${s.code}, ${toText(p)}${esc ? `, ${toText(esc)}` : ''})`;
  return { code: negated ? `rt.not(${code})` : code, type: T.boolean };
}

/** IN as Flink CDC: FALSE when the value is NULL; NOT IN is its negation. */
function inList(negated: boolean, node: AstNode, scope: CompileScope): Compiled {
  const v = compileNode(node.left, scope);
  const items = (node.right.value as AstNode[]).map((n) => compileNode(n, scope));
  const t = scope.temp();
  const held: Compiled = { code: t, type: v.type };
  const tests = items.map((item) => {
    const c = comparator(held, item, node, scope);
    return `${c.fn}(${c.x}, ${c.y}) === 0`;
  });
  const test = `(${t} = ${v.code}, ${tests.join(' || ') || 'false'})`;
  return { code: negated ? `!${test}` : test, type: T.boolean };
}

function isTest(negated: boolean, node: AstNode, scope: CompileScope): Compiled {
  const v = compileNode(node.left, scope);
  const right = node.right;
  if (right.type === 'null') return { code: `(${v.code} ${negated ? '!==' : '==='} null)`, type: T.boolean };
  if (right.type === 'bool') {
    requireBoolean(v, node.left, scope, 'IS TRUE / IS FALSE');
    return { code: `(${v.code} ${negated ? '!==' : '==='} ${right.value})`, type: T.boolean };
  }
  return scope.fail('unsupported', node, 'IS takes NULL, TRUE or FALSE');
}

function compileCase(node: AstNode, scope: CompileScope): Compiled {
  const subject = node.expr ? compileNode(node.expr, scope) : undefined;
  const t = subject ? scope.temp() : '';
  const branches: { cond: string; result: Compiled }[] = [];
  let otherwise: Compiled = { code: 'null', type: T.null };
  for (const arg of node.args as AstNode[]) {
    if (arg.type === 'else') {
      otherwise = compileNode(arg.result, scope);
      continue;
    }
    const result = compileNode(arg.result, scope);
    if (subject) {
      const c = comparator({ code: t, type: subject.type }, compileNode(arg.cond, scope), arg.cond, scope);
      branches.push({ cond: `${c.fn}(${c.x}, ${c.y}) === 0`, result });
    } else branches.push({ cond: `${requireBoolean(compileNode(arg.cond, scope), arg.cond, scope, 'WHEN')} === true`, result });
  }
  const type = [...branches.map((b) => b.result), otherwise].reduce<SqlType | null>((acc, c) => (acc === null ? null : commonType(acc, c.type)), T.null);
  if (!type) return scope.fail('type-mismatch', node, 'the branches of CASE have no common type');
  let code = coerce(otherwise, type);
  for (let i = branches.length - 1; i >= 0; i--) code = `(${branches[i]!.cond} ? ${coerce(branches[i]!.result, type)} : ${code})`;
  return { code: subject ? `(${t} = ${subject.code}, ${code})` : code, type };
}
