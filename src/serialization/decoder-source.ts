import { minEncodedSize } from './min-encoded-size.ts';
import type { SourceContext } from './source-context.ts';
import type { TypeInfo } from './type-info.ts';

/**
 * Decoding source for `type` as { statements, expression }: run the statements, then the
 * expression is the value. Leaves are bare reads, so a struct of leaves becomes one object
 * literal whose property values read the fields in order (JS evaluates them left to right).
 */
export interface DecoderSource {
  readonly statements: string;
  readonly expression: string;
}

export function decoderSource(type: TypeInfo, ctx: SourceContext): DecoderSource {
  const leaf = leafRead(type, ctx);
  if (leaf !== undefined) return { statements: '', expression: leaf };
  switch (type.kind) {
    case 'nullable':
      return nullableSource(type.of, ctx);
    case 'array':
      return arraySource(type.of, ctx);
    case 'map':
      return mapSource(type.key, type.value, ctx);
    case 'struct':
      return membersSource(type.fields.map((f) => f.type), ctx, (values) => `{ ${type.fields.map((f, i) => `${JSON.stringify(f.name)}: ${values[i]}`).join(', ')} }`);
    case 'tuple':
      return membersSource(type.items, ctx, (values) => `[${values.join(', ')}]`);
    default:
      throw new TypeError(`no decoder for type kind ${(type as TypeInfo).kind}`);
  }
}

function leafRead(type: TypeInfo, ctx: SourceContext): string | undefined {
  switch (type.kind) {
    case 'string':
      return 'inp.readString()';
    case 'int':
    case 'timestamp':
      return 'inp.readInt()';
    case 'double':
      return 'inp.readDouble()';
    case 'bigint':
      return 'inp.readBigInt64()';
    case 'boolean':
      return 'inp.readBoolean()';
    case 'bytes':
      return 'inp.readBytes()';
    case 'json':
      return `${ctx.use('json')}.decode(inp)`;
    case 'any':
      return `${ctx.use('any')}.decode(inp)`;
    default:
      return undefined;
  }
}

function nullableSource(of: TypeInfo, ctx: SourceContext): DecoderSource {
  const r = ctx.fresh('r');
  const inner = decoderSource(of, ctx);
  return { statements: `var ${r} = null; if (inp.readPresent()) { ${inner.statements} ${r} = ${inner.expression}; }`, expression: r };
}

function arraySource(of: TypeInfo, ctx: SourceContext): DecoderSource {
  const [n, a, i] = [ctx.fresh('n'), ctx.fresh('a'), ctx.fresh('i')];
  const item = decoderSource(of, ctx);
  return {
    statements: [
      `var ${n} = inp.readLength(${minEncodedSize(of)}), ${a} = new Array(${n});`,
      `for (var ${i} = 0; ${i} < ${n}; ${i}++) { ${item.statements} ${a}[${i}] = ${item.expression}; }`,
    ].join('\n'),
    expression: a,
  };
}

function mapSource(key: TypeInfo, value: TypeInfo, ctx: SourceContext): DecoderSource {
  const [n, m, i, k] = [ctx.fresh('n'), ctx.fresh('m'), ctx.fresh('i'), ctx.fresh('k')];
  const keySource = decoderSource(key, ctx);
  const valueSource = decoderSource(value, ctx);
  return {
    statements: [
      `var ${n} = inp.readLength(${minEncodedSize(key) + minEncodedSize(value)}), ${m} = new Map();`,
      `for (var ${i} = 0; ${i} < ${n}; ${i}++) { ${keySource.statements} var ${k} = ${keySource.expression};`,
      `${valueSource.statements} ${m}.set(${k}, ${valueSource.expression}); }`,
    ].join('\n'),
    expression: m,
  };
}

/**
 * Members in order. Once one needs statements, every member after it is read into a variable
 * first, so reads still happen in wire order.
 */
function membersSource(types: readonly TypeInfo[], ctx: SourceContext, build: (values: string[]) => string): DecoderSource {
  const parts = types.map((t) => decoderSource(t, ctx));
  const lastWithStatements = parts.map((p) => p.statements !== '').lastIndexOf(true);
  const statements: string[] = [];
  const values = parts.map((part, index) => {
    if (index > lastWithStatements) return part.expression;
    const x = ctx.fresh('x');
    statements.push(`${part.statements} var ${x} = ${part.expression};`);
    return x;
  });
  return { statements: statements.join('\n'), expression: build(values) };
}
