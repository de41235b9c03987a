import { describeType } from './describe-type.ts';
import type { PathExpression } from './path-expression.ts';
import type { SourceContext } from './source-context.ts';
import type { StructField, TypeInfo } from './type-info.ts';

/**
 * JS statements that check the value in variable `v` against `type` and write it to `out`.
 * Struct and tuple members are unrolled into straight-line code; arrays and maps loop. `exact`
 * (for inferred types) also rejects objects that are not exactly of the struct's shape, since
 * there the schema is a guess and a silent drop would lose data.
 */
export function encoderSource(type: TypeInfo, v: string, path: PathExpression, ctx: SourceContext, exact: boolean, expected = describeType(type)): string {
  const fail = () => `${ctx.use('fail')}(${v}, ${JSON.stringify(expected)}, ${path.render()})`;
  switch (type.kind) {
    case 'string':
    case 'int':
    case 'double':
    case 'boolean':
    case 'timestamp': {
      const leaf = plainLeafSource(type.kind, v, ctx, fail);
      return `${leaf.check}\n${WRITE[type.kind]}(${leaf.value});`;
    }
    case 'bigint':
      return `if (typeof ${v} !== 'bigint' || ${v} < ${ctx.use('MIN_I64')} || ${v} > ${ctx.use('MAX_I64')}) ${fail()}; out.writeBigInt64(${v});`;
    case 'bytes':
      return `if (!(${v} instanceof Uint8Array)) ${fail()}; out.writeBytes(${v});`;
    case 'json':
      return `${ctx.use('json')}.encode(${v}, out, ${path.render()});`;
    case 'any':
      return `${ctx.use('any')}.encode(${v}, out, ${path.render()});`;
    case 'nullable':
      // A value that is not null is checked against the inner type, but reported against the
      // nullable one: null would have been fine too.
      return `if (${v} == null) out.writeByte(0); else { out.writeByte(1); ${encoderSource(type.of, v, path, ctx, exact, describeType(type))} }`;
    case 'array':
      return arraySource(type.of, v, path, ctx, exact, fail);
    case 'map':
      return mapSource(type.key, type.value, v, path, ctx, exact, fail);
    case 'struct':
      return structSource(type, type.fields, v, path, ctx, exact, fail);
    case 'tuple':
      return tupleSource(type.items, v, path, ctx, exact, fail);
  }
}

/** The leaves written as one plain value: a row writes it with out's method, a record block puts it into its column. */
export type PlainLeafKind = 'string' | 'int' | 'double' | 'boolean' | 'timestamp';

export function isPlainLeaf(kind: TypeInfo['kind']): kind is PlainLeafKind {
  return Object.hasOwn(WRITE, kind);
}

const WRITE: Readonly<Record<PlainLeafKind, string>> = {
  string: 'out.writeString',
  int: 'out.writeInt',
  double: 'out.writeDouble',
  boolean: 'out.writeBoolean',
  timestamp: 'out.writeInt',
};

/**
 * The statements that check `v` as a plain leaf (calling `fail`), and the expression of the
 * value to write: `v`, or for a timestamp the time of a Date, which must be valid (the wire holds a
 * safe integer either way). One rule for rows and record blocks.
 */
export function plainLeafSource(kind: PlainLeafKind, v: string, ctx: SourceContext, fail: () => string): { check: string; value: string } {
  const isInt = (x: string) => `typeof ${x} !== 'number' || ((${x} | 0) !== ${x} && !${ctx.use('isSafe')}(${x}))`;
  switch (kind) {
    case 'string':
    case 'double':
    case 'boolean':
      return { check: `if (typeof ${v} !== '${kind === 'double' ? 'number' : kind}') ${fail()};`, value: v };
    case 'int':
      return { check: `if (${isInt(v)}) ${fail()};`, value: v };
    case 'timestamp': {
      const t = ctx.fresh('t');
      return { check: `var ${t} = ${v} instanceof Date ? ${v}.getTime() : ${v};\nif (${isInt(t)}) ${fail()};`, value: t };
    }
  }
}

function arraySource(of: TypeInfo, v: string, path: PathExpression, ctx: SourceContext, exact: boolean, fail: () => string): string {
  const [n, i, e] = [ctx.fresh('n'), ctx.fresh('i'), ctx.fresh('e')];
  return [
    `if (!${ctx.use('isArray')}(${v})) ${fail()};`,
    `var ${n} = ${v}.length; out.writeVarUint(${n});`,
    `for (var ${i} = 0; ${i} < ${n}; ${i}++) { var ${e} = ${v}[${i}];`,
    encoderSource(of, e, path.index(i), ctx, exact),
    '}',
  ].join('\n');
}

function mapSource(key: TypeInfo, value: TypeInfo, v: string, path: PathExpression, ctx: SourceContext, exact: boolean, fail: () => string): string {
  const [i, entry, k, x] = [ctx.fresh('i'), ctx.fresh('entry'), ctx.fresh('k'), ctx.fresh('x')];
  return [
    `if (!(${v} instanceof Map)) ${fail()};`,
    `out.writeVarUint(${v}.size); var ${i} = 0;`,
    `for (var ${entry} of ${v}) { var ${k} = ${entry}[0], ${x} = ${entry}[1];`,
    encoderSource(key, k, path.mapKey(i), ctx, exact),
    encoderSource(value, x, path.mapValue(ctx.use('keyText'), k, i), ctx, exact),
    `${i}++; }`,
  ].join('\n');
}

function structSource(type: TypeInfo, fields: readonly StructField[], v: string, path: PathExpression, ctx: SourceContext, exact: boolean, fail: () => string): string {
  const lines = [`if (typeof ${v} !== 'object' || ${v} === null || ${ctx.use('isArray')}(${v})) ${fail()};`];
  if (exact) lines.push(exactShapeCheck(type, fields.length, v, path, ctx));
  for (const field of fields) {
    const f = ctx.fresh('f');
    const name = JSON.stringify(field.name);
    lines.push(`var ${f} = ${v}[${name}];`);
    // A field whose type takes undefined must still be present, or the count check would let
    // another key stand in for it.
    if (exact && acceptsUndefined(field.type)) lines.push(`if (${f} === undefined && !${ctx.use('hasOwn')}(${v}, ${name})) ${failShape(type, v, path, ctx)};`);
    lines.push(encoderSource(field.type, f, path.member(field.name), ctx, exact));
  }
  return lines.join('\n');
}

function exactShapeCheck(type: TypeInfo, fieldCount: number, v: string, path: PathExpression, ctx: SourceContext): string {
  return `if (${ctx.use('protoOf')}(${v}) !== ${ctx.use('OBJECT_PROTO')} || ${ctx.use('countKeys')}(${v}) !== ${fieldCount}) ${failShape(type, v, path, ctx)};`;
}

function failShape(type: TypeInfo, v: string, path: PathExpression, ctx: SourceContext): string {
  return `${ctx.use('failShape')}(${v}, ${JSON.stringify(describeType(type))}, ${path.render()})`;
}

function acceptsUndefined(type: TypeInfo): boolean {
  return type.kind === 'any' || type.kind === 'nullable';
}

function tupleSource(items: readonly TypeInfo[], v: string, path: PathExpression, ctx: SourceContext, exact: boolean, fail: () => string): string {
  const lines = [`if (!${ctx.use('isArray')}(${v}) || ${v}.length !== ${items.length}) ${fail()};`];
  items.forEach((item, index) => {
    const e = ctx.fresh('e');
    lines.push(`var ${e} = ${v}[${index}];`, encoderSource(item, e, path.index(String(index)), ctx, exact));
  });
  return lines.join('\n');
}
