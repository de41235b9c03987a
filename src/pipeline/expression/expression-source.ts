import sqlParser from 'node-sql-parser';
import { ExpressionError, type ExpressionPosition } from './expression-error.ts';

/* eslint-disable @typescript-eslint/no-explicit-any -- node-sql-parser's AST is typed loosely */
export type AstNode = any;

/**
 * A projection or filter parsed by node-sql-parser (its MySQL grammar: backquoted identifiers,
 * `||` as an operator, locations on nodes), wrapped as `SELECT <projection> FROM t` or
 * `SELECT * FROM t WHERE <filter>`. A few words of Flink SQL the grammar lacks are rewritten
 * first (LOCALTIMESTAMP, LOCALTIME, CAST(... AS STRING)); positions map back to the expression's
 * own text.
 */
export interface ParsedExpression {
  readonly text: string;
  /** The SELECT list (projection) or the WHERE condition (filter). */
  readonly ast: AstNode;
  /** Position in the expression text of an offset in the parsed SQL. */
  positionOf(sqlOffset: number): ExpressionPosition;
}

interface Edit {
  /** Offset in the rewritten text where the edit's text ends. */
  readonly at: number;
  /** Characters the rewrite added there (negative: removed). */
  readonly delta: number;
}

const parser = new sqlParser.Parser();
const OPTIONS = { database: 'MySQL', parseOptions: { includeLocations: true } } as const;

export function parseExpression(text: string, part: 'projection' | 'filter', ruleIndex?: number): ParsedExpression {
  const { rewritten, edits } = rewriteFlinkWords(text);
  const prefix = part === 'projection' ? 'SELECT ' : 'SELECT * FROM t WHERE ';
  const sql = part === 'projection' ? `${prefix}${rewritten} FROM t` : `${prefix}${rewritten}`;
  const positionOf = (sqlOffset: number): ExpressionPosition => {
    let o = sqlOffset - prefix.length;
    for (const e of edits) if (o >= e.at) o -= e.delta;
    return position(text, Math.max(0, Math.min(o, text.length)));
  };
  let ast: AstNode;
  try {
    ast = parser.astify(sql, OPTIONS);
  } catch (e) {
    const offset = (e as { location?: { start?: { offset?: number } } }).location?.start?.offset;
    throw new ExpressionError({
      code: 'syntax',
      part,
      expression: text,
      ruleIndex,
      position: offset !== undefined ? positionOf(offset) : undefined,
      detail: `not an SQL ${part === 'projection' ? 'select list' : 'condition'}: ${(e as Error).message.split('\n')[0]}`,
      cause: e,
    });
  }
  const select = Array.isArray(ast) ? ast[0] : ast;
  if (Array.isArray(ast) && ast.length !== 1) throw new ExpressionError({ code: 'syntax', part, expression: text, ruleIndex, detail: 'one expression expected (a ";" ends it)' });
  const body = part === 'projection' ? select.columns : select.where;
  if (part === 'projection' && (select.where || select.groupby || select.limit || select.orderby)) {
    throw new ExpressionError({ code: 'syntax', part, expression: text, ruleIndex, detail: 'a projection is a select list only (no FROM, WHERE, ...)' });
  }
  return { text, ast: body, positionOf };
}

/** 1-based line and column of an offset in a text. */
export function position(text: string, offset: number): ExpressionPosition {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { offset, line, column: offset - lineStart + 1 };
}

const WORD = /[A-Za-z_][A-Za-z_0-9]*/y;

/** Rewrites words of Flink SQL outside quotes: LOCALTIMESTAMP → LOCALTIMESTAMP(), `AS STRING)` → `AS CHAR)`. */
function rewriteFlinkWords(text: string): { rewritten: string; edits: Edit[] } {
  let out = '';
  const edits: Edit[] = [];
  let prevWord = '';
  for (let i = 0; i < text.length; ) {
    const c = text[i]!;
    if (c === "'" || c === '`' || c === '"') {
      let j = i + 1;
      while (j < text.length && !(text[j] === c && text[j + 1] !== c)) j += text[j] === c ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
      prevWord = '';
      continue;
    }
    WORD.lastIndex = i;
    const m = WORD.exec(text);
    if (!m) {
      out += c;
      if (!/\s/.test(c)) prevWord = '';
      i++;
      continue;
    }
    const word = m[0];
    const upper = word.toUpperCase();
    const rest = text.slice(i + word.length);
    let replacement = word;
    if ((upper === 'LOCALTIMESTAMP' || upper === 'LOCALTIME') && !/^\s*\(/.test(rest)) replacement = `${word}()`;
    else if (upper === 'STRING' && prevWord === 'AS' && /^\s*\)/.test(rest)) replacement = 'CHAR';
    out += replacement;
    if (replacement.length !== word.length) edits.push({ at: out.length, delta: replacement.length - word.length });
    prevWord = upper;
    i += word.length;
  }
  return { rewritten: out, edits };
}
