import type { Compiled, CompileScope } from './compiled-expression.ts';
import type { AstNode } from './expression-source.ts';
import { JavaDatePatternError, compileDateFormatter, compileDateParser } from './java-date-pattern.ts';
import { asDecimal, commonType, isInteger, isNumeric, isTemporal, T, typeText, type SqlType } from './sql-type.ts';
import { coerce } from './value-coercion.ts';

/**
 * The functions of Flink CDC's transform list (docs/core-concept/transform.md) that weir supports:
 * each checks its arguments' number and types at compile time and gives the code of the call.
 */
interface Call {
  readonly name: string;
  readonly node: AstNode;
  readonly args: readonly Compiled[];
  readonly scope: CompileScope;
}

type FunctionCompiler = (c: Call) => Compiled;

function arity(c: Call, min: number, max = min): void {
  if (c.args.length < min || c.args.length > max) {
    const want = min === max ? `${min}` : max === Infinity ? `at least ${min}` : `${min} to ${max}`;
    c.scope.fail('wrong-arguments', c.node, `${c.name} takes ${want} argument${max === 1 ? '' : 's'}, not ${c.args.length}`);
  }
}

function expect(c: Call, i: number, ok: (t: SqlType) => boolean, what: string): Compiled {
  const a = c.args[i]!;
  if (a.type.kind !== 'NULL' && !ok(a.type)) c.scope.fail('wrong-arguments', c.node, `argument ${i + 1} of ${c.name} must be ${what}, not ${typeText(a.type)}`);
  return a;
}

const isString = (t: SqlType): boolean => t.kind === 'STRING';
const isStringish = (t: SqlType): boolean => t.kind === 'STRING' || t.kind === 'BYTES';
const isTimestampLike = (t: SqlType): boolean => isTemporal(t) || t.kind === 'STRING';

/** A string argument; other types become their text (Calcite would insert the cast). */
function text(c: Call, i: number): string {
  const a = c.args[i]!;
  return a.type.kind === 'STRING' || a.type.kind === 'NULL' ? a.code : a.type.kind === 'DOUBLE' ? `rt.dblStr(${a.code})` : `rt.str(${a.code})`;
}

function int(c: Call, i: number): string {
  const a = expect(c, i, isInteger, 'an integer');
  return a.type.kind === 'BIGINT' ? `rt.toInt(${a.code})` : a.code;
}

const ltz = (c: Call, i: number): boolean => c.args[i]!.type.kind === 'TIMESTAMP_LTZ';

function constantText(c: Call, i: number, what: string): string {
  const a = c.args[i]!;
  if (typeof a.constant !== 'string') return c.scope.fail('wrong-arguments', c.node, `argument ${i + 1} of ${c.name} must be a constant ${what}`);
  return a.constant;
}

/** Checks a constant Java date pattern at compile time, so a bad one fails --check, not a row. */
function pattern(c: Call, i: number): string {
  const a = c.args[i]!;
  if (typeof a.constant === 'string') {
    try {
      compileDateFormatter(a.constant);
      compileDateParser(a.constant);
    } catch (e) {
      if (e instanceof JavaDatePatternError) c.scope.fail('wrong-arguments', c.node, e.message);
      throw e;
    }
  }
  return text(c, i);
}

const unary = (helper: string, type: SqlType, check = isString, what = 'a string'): FunctionCompiler => (c) => {
  arity(c, 1);
  expect(c, 0, check, what);
  return { code: `rt.${helper}(${text(c, 0)})`, type };
};

function numericUnary(c: Call, helpers: { i: string; l: string; d: string; x: string }, type?: (t: SqlType) => SqlType): Compiled {
  arity(c, 1);
  const a = expect(c, 0, isNumeric, 'a number');
  const k = a.type.kind;
  const helper = k === 'DECIMAL' ? helpers.x : k === 'BIGINT' ? helpers.l : isInteger(a.type) ? helpers.i : helpers.d;
  if (helper === '') return a;
  return { code: `rt.${helper}(${a.code})`, type: type ? type(a.type) : a.type };
}

const ceilOrFloor =
  (helperX: string, helperD: string): FunctionCompiler =>
  (c) =>
    numericUnary(c, { i: '', l: '', d: helperD, x: helperX }, (t) => (t.kind === 'DECIMAL' ? T.decimal(t.precision! - t.scale! + 1, 0) : t));

function round(c: Call): Compiled {
  arity(c, 1, 2);
  const a = expect(c, 0, isNumeric, 'a number');
  const n = c.args.length === 2 ? int(c, 1) : '0';
  const digits = c.args.length === 2 ? c.args[1]!.constant : 0;
  if (a.type.kind === 'DECIMAL') {
    const s = typeof digits === 'number' ? Math.max(0, Math.min(digits, a.type.scale!)) : a.type.scale!;
    return { code: `rt.xround(${a.code}, ${n})`, type: T.decimal(a.type.precision! - a.type.scale! + s + 1, s) };
  }
  const helper = a.type.kind === 'BIGINT' ? 'lround' : isInteger(a.type) ? 'iround' : 'dround';
  return { code: `rt.${helper}(${a.code}, ${n})`, type: a.type };
}

function trimFunction(c: Call, leading: boolean, trailing: boolean): Compiled {
  arity(c, 1, 2);
  expect(c, 0, isString, 'a string');
  return { code: `rt.trim(${text(c, 0)}, ${c.args.length === 2 ? text(c, 1) : 'rt.WHITESPACE'}, ${leading}, ${trailing})`, type: T.string };
}

/** TRIM([BOTH | LEADING | TRAILING] [chars] FROM s) as node-sql-parser gives it: a flat argument list. */
function trimSql(node: AstNode, scope: CompileScope, compile: (n: AstNode) => Compiled): Compiled {
  const raw = (node.args?.value ?? []) as AstNode[];
  let leading = true;
  let trailing = true;
  let chars: Compiled | undefined;
  let subject: Compiled | undefined;
  const rest = raw.filter((a) => !(a.type === 'origin' && /^(both|leading|trailing)$/i.test(a.value) && ((leading = !/trailing/i.test(a.value)), (trailing = !/leading/i.test(a.value)), true)));
  const from = rest.findIndex((a) => a.type === 'origin' && /^from$/i.test(a.value));
  if (from >= 0) {
    if (from === 1) chars = compile(rest[0]);
    subject = rest[from + 1] ? compile(rest[from + 1]) : undefined;
  } else if (rest.length >= 1) {
    subject = compile(rest[0]);
    if (rest[1]) chars = compile(rest[1]);
  }
  if (!subject) return scope.fail('wrong-arguments', node, 'TRIM needs a string');
  return trimFunction({ name: 'TRIM', node, args: chars ? [subject, chars] : [subject], scope }, leading, trailing);
}

function conditional(c: Call): Compiled {
  arity(c, 3);
  const cond = expect(c, 0, (t) => t.kind === 'BOOLEAN', 'a BOOLEAN');
  const type = commonType(c.args[1]!.type, c.args[2]!.type);
  if (!type) return c.scope.fail('type-mismatch', c.node, `IF's values have no common type: ${typeText(c.args[1]!.type)}, ${typeText(c.args[2]!.type)}`);
  return { code: `(${cond.code} === true ? ${coerce(c.args[1]!, type)} : ${coerce(c.args[2]!, type)})`, type };
}

function coalesce(c: Call): Compiled {
  arity(c, 1, Infinity);
  const type = c.args.reduce<SqlType | null>((acc, a) => (acc === null ? null : commonType(acc, a.type)), T.null);
  if (!type) return c.scope.fail('type-mismatch', c.node, `the arguments of ${c.name} have no common type`);
  let code = coerce(c.args[c.args.length - 1]!, type);
  for (let i = c.args.length - 2; i >= 0; i--) {
    const t = c.scope.temp();
    code = `((${t} = ${coerce(c.args[i]!, type)}) !== null ? ${t} : ${code})`;
  }
  return { code, type };
}

function nullIf(c: Call): Compiled {
  arity(c, 2);
  const a = c.args[0]!;
  const b = c.args[1]!;
  const common = commonType(a.type, b.type);
  if (!common) return c.scope.fail('type-mismatch', c.node, `NULLIF cannot compare ${typeText(a.type)} with ${typeText(b.type)}`);
  const t = c.scope.temp();
  const fn = common.kind === 'DECIMAL' ? 'rt.xcmp' : isTemporal(common) ? 'rt.tcmp' : 'rt.cmp';
  return { code: `(${t} = ${a.code}, ${fn}(${coerce({ code: t, type: a.type }, common)}, ${coerce(b, common)}) === 0 ? null : ${t})`, type: a.type };
}

const TIME_UNITS = ['MICROSECOND', 'MILLISECOND', 'SECOND', 'MINUTE', 'HOUR', 'DAY', 'WEEK', 'MONTH', 'QUARTER', 'YEAR'];

function unitOf(node: AstNode, c: Call): string {
  const raw = node.args?.value?.[0];
  const unit = String(raw?.value ?? raw?.column ?? '').toUpperCase().replace(/^SQL_TSI_/, '').replace(/^'|'$/g, '');
  if (!TIME_UNITS.includes(unit)) return c.scope.fail('wrong-arguments', c.node, `${c.name} takes a unit of ${TIME_UNITS.join(', ')}, not '${unit}'`);
  return unit;
}

function timestampDiff(c: Call, unit: string): Compiled {
  arity(c, 3);
  expect(c, 1, isTimestampLike, 'a DATE or TIMESTAMP');
  expect(c, 2, isTimestampLike, 'a DATE or TIMESTAMP');
  return { code: `rt.timestampDiff(${JSON.stringify(unit)}, ${c.args[1]!.code}, ${ltz(c, 1)}, ${c.args[2]!.code}, ${ltz(c, 2)}, x)`, type: T.int };
}

function timestampAdd(c: Call, unit: string): Compiled {
  arity(c, 3);
  const t = expect(c, 2, isTimestampLike, 'a DATE or TIMESTAMP');
  const type = t.type.kind === 'TIMESTAMP_LTZ' ? T.timestampLtz(3) : T.timestamp(3);
  return { code: `rt.timestampAdd(${JSON.stringify(unit)}, ${int(c, 1)}, ${t.code}, ${ltz(c, 2)})`, type };
}

function dateFormat(c: Call): Compiled {
  arity(c, 2);
  const t = expect(c, 0, isTimestampLike, 'a DATE, TIME or TIMESTAMP');
  expect(c, 1, isString, 'a pattern string');
  if (t.type.kind === 'TIME') return { code: `rt.timeFormat(${t.code}, ${pattern(c, 1)})`, type: T.string };
  return { code: `rt.dateFormat(${t.code}, ${pattern(c, 1)}, ${ltz(c, 0)}, x)`, type: T.string };
}

function toDate(c: Call): Compiled {
  arity(c, 1, 2);
  const a = c.args[0]!;
  if (isTemporal(a.type)) {
    if (c.args.length === 2) c.scope.fail('wrong-arguments', c.node, 'TO_DATE of a timestamp takes no pattern');
    return { code: `rt.datePart(${a.code})`, type: T.date };
  }
  expect(c, 0, isString, 'a string or a timestamp');
  return { code: `rt.toDateFn(${text(c, 0)}, ${c.args.length === 2 ? pattern(c, 1) : 'rt.DEFAULT_DATE'}, x)`, type: T.date };
}

const toTimestamp =
  (helper: string, type: SqlType): FunctionCompiler =>
  (c) => {
    arity(c, 1, 2);
    expect(c, 0, isString, 'a string');
    return { code: `rt.${helper}(${text(c, 0)}, ${c.args.length === 2 ? pattern(c, 1) : 'rt.DEFAULT_TIMESTAMP'}, x)`, type };
  };

function fromUnixtime(c: Call): Compiled {
  arity(c, 1, 2);
  expect(c, 0, isInteger, 'an integer (seconds)');
  return { code: `rt.fromUnixtime(${c.args[0]!.code}, ${c.args.length === 2 ? pattern(c, 1) : 'rt.DEFAULT_TIMESTAMP'}, x)`, type: T.string };
}

function unixTimestamp(c: Call): Compiled {
  arity(c, 0, 2);
  if (c.args.length === 0) return { code: 'rt.unixNow(x)', type: T.bigint };
  expect(c, 0, isString, 'a string');
  return { code: `rt.unixTimestamp(${text(c, 0)}, ${c.args.length === 2 ? pattern(c, 1) : 'rt.DEFAULT_TIMESTAMP'}, x)`, type: T.bigint };
}

const niladic =
  (helper: string, type: SqlType): FunctionCompiler =>
  (c) => {
    arity(c, 0);
    return { code: `rt.${helper}(x)`, type };
  };

const field =
  (unit: string): FunctionCompiler =>
  (c) => {
    arity(c, 1);
    const t = expect(c, 0, isTimestampLike, 'a DATE, TIME or TIMESTAMP');
    return { code: `rt.extract(${JSON.stringify(unit)}, ${t.code}, ${ltz(c, 0)}, x)`, type: T.bigint };
  };

const stringFn =
  (helper: string, type: SqlType, kinds: ('s' | 'i')[], optional = 0): FunctionCompiler =>
  (c) => {
    arity(c, kinds.length - optional, kinds.length);
    const codes = c.args.map((_, i) => (kinds[i] === 'i' ? int(c, i) : (expect(c, i, (t) => isStringish(t) || isNumeric(t) || isTemporal(t), 'a string'), text(c, i))));
    return { code: `rt.${helper}(${codes.join(', ')})`, type };
  };

const FUNCTIONS: Record<string, FunctionCompiler> = {
  // strings
  CHAR_LENGTH: unary('charLength', T.int),
  CHARACTER_LENGTH: unary('charLength', T.int),
  UPPER: unary('upper', T.string),
  LOWER: unary('lower', T.string),
  LTRIM: (c) => trimFunction(c, true, false),
  RTRIM: (c) => trimFunction(c, false, true),
  BTRIM: (c) => trimFunction(c, true, true),
  REGEXP_REPLACE: stringFn('regexpReplace', T.string, ['s', 's', 's']),
  REGEXP_EXTRACT: stringFn('regexpExtract', T.string, ['s', 's', 'i'], 1),
  SUBSTR: stringFn('substr', T.string, ['s', 'i', 'i'], 1),
  SUBSTRING: stringFn('substr', T.string, ['s', 'i', 'i'], 1),
  CONCAT: (c) => {
    arity(c, 1, Infinity);
    return { code: `rt.concat(${c.args.map((_, i) => text(c, i)).join(', ')})`, type: T.string };
  },
  CONCAT_WS: (c) => {
    arity(c, 2, Infinity);
    return { code: `rt.concatWs(${c.args.map((_, i) => text(c, i)).join(', ')})`, type: T.string };
  },
  LPAD: (c) => {
    arity(c, 3);
    return { code: `rt.pad(${text(c, 0)}, ${int(c, 1)}, ${text(c, 2)}, true)`, type: T.string };
  },
  RPAD: (c) => {
    arity(c, 3);
    return { code: `rt.pad(${text(c, 0)}, ${int(c, 1)}, ${text(c, 2)}, false)`, type: T.string };
  },
  REPLACE: stringFn('replace', T.string, ['s', 's', 's']),
  REPEAT: stringFn('repeat', T.string, ['s', 'i']),
  LEFT: stringFn('left', T.string, ['s', 'i']),
  RIGHT: stringFn('right', T.string, ['s', 'i']),
  LOCATE: stringFn('locate', T.int, ['s', 's', 'i'], 1),
  INSTR: (c) => {
    arity(c, 2);
    return { code: `rt.locate(${text(c, 1)}, ${text(c, 0)})`, type: T.int };
  },
  STARTSWITH: stringFn('startsWith', T.boolean, ['s', 's']),
  ENDSWITH: stringFn('endsWith', T.boolean, ['s', 's']),
  TO_BASE64: (c) => {
    arity(c, 1);
    expect(c, 0, isStringish, 'a string or bytes');
    return { code: `rt.toBase64(${c.args[0]!.code})`, type: T.string };
  },
  FROM_BASE64: unary('fromBase64', T.string),
  // numbers
  ABS: (c) => numericUnary(c, { i: 'iabs', l: 'labs', d: 'dabs', x: 'xabs' }),
  CEIL: ceilOrFloor('xceil', 'dceil'),
  CEILING: ceilOrFloor('xceil', 'dceil'),
  FLOOR: ceilOrFloor('xfloor', 'dfloor'),
  ROUND: round,
  UUID: (c) => {
    arity(c, 0);
    return { code: 'rt.uuid()', type: T.string };
  },
  // conditions
  IF: conditional,
  COALESCE: coalesce,
  IFNULL: (c) => (arity(c, 2), coalesce(c)),
  NULLIF: nullIf,
  // time
  NOW: niladic('now', T.timestampLtz(3)),
  CURRENT_TIMESTAMP: niladic('now', T.timestampLtz(3)),
  LOCALTIMESTAMP: niladic('localTimestamp', T.timestamp(3)),
  CURRENT_DATE: niladic('currentDate', T.date),
  LOCALTIME: niladic('localTime', T.time),
  CURRENT_TIME: niladic('localTime', T.time),
  DATE_FORMAT: dateFormat,
  TO_DATE: toDate,
  TO_TIMESTAMP: toTimestamp('toTimestampFn', T.timestamp(3)),
  TO_TIMESTAMP_LTZ: toTimestamp('toTimestampLtzFn', T.timestampLtz(3)),
  FROM_UNIXTIME: fromUnixtime,
  UNIX_TIMESTAMP: unixTimestamp,
  DATE_ADD: (c) => {
    arity(c, 2);
    const t = expect(c, 0, isTimestampLike, 'a DATE or TIMESTAMP');
    return { code: `rt.dateAdd(${t.code}, ${int(c, 1)}, ${ltz(c, 0)}, x)`, type: T.string };
  },
  YEAR: field('YEAR'),
  QUARTER: field('QUARTER'),
  MONTH: field('MONTH'),
  DAYOFMONTH: field('DAYOFMONTH'),
  DAYOFYEAR: field('DAYOFYEAR'),
  DAYOFWEEK: field('DAYOFWEEK'),
  HOUR: field('HOUR'),
  MINUTE: field('MINUTE'),
  SECOND: field('SECOND'),
};

/** Names of the supported functions, for the documentation test and did-you-mean. */
export const FUNCTION_NAMES: readonly string[] = [...Object.keys(FUNCTIONS), 'TRIM', 'TIMESTAMPDIFF', 'TIMESTAMP_DIFF', 'TIMESTAMPADD', 'CAST', 'EXTRACT'].sort();

export function compileFunctionCall(node: AstNode, scope: CompileScope, compile: (n: AstNode) => Compiled): Compiled {
  const name = String(node.name?.name?.map((p: AstNode) => p.value).join('.') ?? node.name).toUpperCase();
  if (name === 'TRIM') return trimSql(node, scope, compile);
  // `NOT (a > 1)` reads as a call of NOT to the grammar.
  if (name === 'NOT' && node.args?.value?.length === 1) return compile({ type: 'unary_expr', operator: 'NOT', expr: node.args.value[0], loc: node.loc });
  const rawArgs = (node.args?.value ?? []) as AstNode[];
  if (name === 'TIMESTAMPDIFF' || name === 'TIMESTAMP_DIFF' || name === 'TIMESTAMPADD') {
    const c: Call = { name, node, args: [{ code: '', type: T.string }, ...rawArgs.slice(1).map(compile)], scope };
    const unit = unitOf(node, c);
    return name === 'TIMESTAMPADD' ? timestampAdd(c, unit) : timestampDiff(c, unit);
  }
  const fn = FUNCTIONS[name];
  if (!fn) return scope.fail('unknown-function', node, `unknown function ${name}${suggest(name)}`);
  return fn({ name, node, args: rawArgs.map(compile), scope });
}

function suggest(name: string): string {
  const near = FUNCTION_NAMES.find((f) => f.replace(/_/g, '') === name.replace(/_/g, '') || (Math.abs(f.length - name.length) <= 1 && distance(f, name) <= 1));
  return near ? ` (did you mean ${near}?)` : '';
}

function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) for (let j = 1; j <= b.length; j++) d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
  return d[a.length]![b.length]!;
}

export function compileExtract(node: AstNode, source: Compiled, scope: CompileScope): Compiled {
  const unit = String(node.args.field).toUpperCase();
  const fn = FUNCTIONS[unit === 'DAY' ? 'DAYOFMONTH' : unit === 'DOY' ? 'DAYOFYEAR' : unit === 'DOW' ? 'DAYOFWEEK' : unit];
  if (!fn || !['YEAR', 'QUARTER', 'MONTH', 'DAY', 'DOY', 'DOW', 'HOUR', 'MINUTE', 'SECOND'].includes(unit)) return scope.fail('wrong-arguments', node, `EXTRACT does not take ${unit}`);
  return fn({ name: `EXTRACT(${unit})`, node, args: [source], scope });
}

const CAST_TYPES: Record<string, (t: AstNode) => SqlType> = {
  CHAR: () => T.string,
  VARCHAR: () => T.string,
  STRING: () => T.string,
  TEXT: () => T.string,
  BOOLEAN: () => T.boolean,
  TINYINT: () => ({ kind: 'TINYINT' }),
  SMALLINT: () => ({ kind: 'SMALLINT' }),
  INT: () => T.int,
  INTEGER: () => T.int,
  SIGNED: () => T.bigint,
  BIGINT: () => T.bigint,
  FLOAT: () => ({ kind: 'FLOAT' }),
  DOUBLE: () => T.double,
  DECIMAL: (t) => T.decimal(t.length ?? 10, t.scale ?? 0),
  NUMERIC: (t) => T.decimal(t.length ?? 10, t.scale ?? 0),
  DATE: () => T.date,
  TIME: () => T.time,
  TIMESTAMP: (t) => T.timestamp(t.length ?? 3),
  DATETIME: (t) => T.timestamp(t.length ?? 3),
};

const INT_RANGES: Record<string, [number, number]> = { TINYINT: [-128, 127], SMALLINT: [-32768, 32767], INT: [-2147483648, 2147483647] };

/** CAST as Flink CDC's paths (docs table "Casting Functions"); a value that does not convert fails the row. */
export function compileCast(node: AstNode, value: Compiled, scope: CompileScope): Compiled {
  const target = node.target?.[0] ?? node.target;
  const name = String(target?.dataType ?? '').toUpperCase();
  const make = CAST_TYPES[name];
  if (!make) return scope.fail('unsupported', node, `CAST to ${name} is not supported`);
  const to = make(target);
  const from = value.type;
  const v = value.code;
  if (from.kind === 'NULL') return { code: 'null', type: to };
  if (from.kind === 'OTHER' && to.kind !== 'STRING') scope.fail('type-mismatch', node, `cannot CAST ${typeText(from)} to ${typeText(to)}`);
  switch (to.kind) {
    case 'STRING':
      return { code: from.kind === 'DOUBLE' || from.kind === 'FLOAT' ? `rt.dblStr(${v})` : from.kind === 'STRING' ? v : `rt.str(${v})`, type: to };
    case 'BOOLEAN':
      if (!isNumeric(from) && from.kind !== 'STRING' && from.kind !== 'BOOLEAN') break;
      return { code: `rt.toBoolean(${v})`, type: to };
    case 'TINYINT':
    case 'SMALLINT':
    case 'INT': {
      if (!isNumeric(from) && from.kind !== 'STRING' && from.kind !== 'BOOLEAN') break;
      const [min, max] = INT_RANGES[to.kind]!;
      return { code: `rt.toInt(${v}, ${min}, ${max}, ${JSON.stringify(to.kind)})`, type: to };
    }
    case 'BIGINT':
      if (!isNumeric(from) && from.kind !== 'STRING' && from.kind !== 'BOOLEAN') break;
      return { code: `rt.toBigint(${v})`, type: to };
    case 'FLOAT':
    case 'DOUBLE':
      if (!isNumeric(from) && from.kind !== 'STRING' && from.kind !== 'BOOLEAN') break;
      return { code: `rt.toDouble(${v})`, type: T.double };
    case 'DECIMAL':
      if (!isNumeric(from) && from.kind !== 'STRING' && from.kind !== 'BOOLEAN') break;
      return { code: `rt.toDecimal(${from.kind === 'DECIMAL' ? v : v}, ${to.precision}, ${to.scale})`, type: to };
    case 'DATE':
      if (from.kind === 'STRING' || from.kind === 'TIMESTAMP' || from.kind === 'DATE') return { code: `rt.toDate(${v})`, type: to };
      if (from.kind === 'TIMESTAMP_LTZ') return { code: `rt.datePart(${v})`, type: to };
      break;
    case 'TIME':
      if (from.kind === 'STRING' || from.kind === 'TIME') return { code: `rt.toTime(${v})`, type: to };
      break;
    case 'TIMESTAMP':
      if (from.kind === 'STRING' || from.kind === 'TIMESTAMP' || from.kind === 'DATE') return { code: `rt.toTimestampText(${v}, ${to.precision})`, type: to };
      if (from.kind === 'TIMESTAMP_LTZ') return { code: `rt.toTimestampText(rt.dateFormat(${v}, "yyyy-MM-dd HH:mm:ss.SSS", true, x), ${to.precision})`, type: to };
      break;
  }
  void asDecimal;
  return scope.fail('type-mismatch', node, `cannot CAST ${typeText(from)} to ${typeText(to)}`);
}
