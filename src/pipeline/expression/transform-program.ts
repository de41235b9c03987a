import type { CdcColumn } from '../../connectors/cdc/schema-change.ts';
import type { RowImage } from '../../connectors/cdc/change-record.ts';
import type { ColumnBinding, Compiled, CompileScope } from './compiled-expression.ts';
import { columnName, compileNode } from './expression-compiler.ts';
import { ExpressionError, type ExpressionErrorCode } from './expression-error.ts';
import { parseExpression, type AstNode, type ParsedExpression } from './expression-source.ts';
import { RUNTIME_LIBRARY, type EvaluationContext } from './runtime-library.ts';
import { sourceColumnTypeOf } from './source-column-type.ts';
import { T, typeText, type SqlType } from './sql-type.ts';

/** Flink CDC's metadata columns: readable when named, never part of `*`. */
export const METADATA_COLUMNS = {
  __namespace_name__: 'namespaceName',
  __schema_name__: 'schemaName',
  __table_name__: 'tableName',
  __data_event_type__: 'dataEventType',
} as const;

/** The metadata of the row being transformed. dataEventType is Flink CDC's: '+I', '-U', '+U', '-D'. */
export interface TransformRowMeta {
  readonly namespaceName: string | null;
  readonly schemaName: string | null;
  readonly tableName: string;
  readonly dataEventType: string;
}

export interface TransformDefinition {
  readonly projection?: string;
  readonly filter?: string;
  /** The source table's columns as the CDC schema records give them. */
  readonly columns: readonly CdcColumn[];
  /** Which source names the types: MySQL's TIMESTAMP is an instant, PostgreSQL's a local time. */
  readonly dialect: 'mysql' | 'postgres';
  /** For error messages: the transform rule's index (0-based). */
  readonly ruleIndex?: number;
}

/** A column of a projection's result: what the sink creates. */
export interface ProjectedColumn {
  readonly name: string;
  readonly type: SqlType;
  /** Flink CDC's type text ('DECIMAL(12, 2)'). */
  readonly typeText: string;
  readonly origin: 'column' | 'computed' | 'metadata';
  /** For origin 'column': the source's own type text, which a sink of the same dialect can reuse. */
  readonly sourceType?: string;
}

export interface CompiledTransform {
  /** The result schema, in projection order (the source's columns when there is no projection). */
  readonly columns: readonly ProjectedColumn[];
  /** The row projected, or null when the filter is not TRUE for it. */
  apply(row: RowImage, meta: TransformRowMeta): RowImage | null;
  /** The row projected whatever the filter says (an image the source gave only in part: the key of a delete). */
  project(row: RowImage, meta: TransformRowMeta): RowImage;
  /** The generated JavaScript, for diagnostics. */
  readonly code: string;
}

interface Item {
  readonly name: string;
  readonly column: ProjectedColumn;
  /** For computed columns: the expression; null for a column passed through. */
  readonly compiled: Compiled | null;
  readonly passThroughCode: string;
}

/**
 * Compiles a transform rule's projection and filter for one source table schema, once: the result
 * is a JS function (generated with `new Function`) applying both to a row. Unknown columns and
 * functions, wrong argument types and bad constant patterns fail here, with the position in the
 * expression's text.
 */
export function compileTransform(def: TransformDefinition, ctx: EvaluationContext): CompiledTransform {
  const gen = new Generator();
  const sourceBindings = new Map<string, { column: CdcColumn; type: SqlType }>();
  for (const c of def.columns) sourceBindings.set(c.name, { column: c, type: sourceColumnTypeOf(c.type, def.dialect) });
  const decimalTemps = new Map<string, string>();
  const readSource = (name: string): ColumnBinding | undefined => {
    const meta = METADATA_COLUMNS[name as keyof typeof METADATA_COLUMNS];
    if (meta) return { code: `m.${meta}`, type: T.string };
    const s = sourceBindings.get(name);
    if (!s) return undefined;
    const ref = `r[${JSON.stringify(name)}]`;
    if (s.type.kind === 'DECIMAL') {
      // Parsed once per row however often the expressions name it: a temporary starts undefined per call.
      let t = decimalTemps.get(name);
      if (!t) decimalTemps.set(name, (t = gen.temp()));
      return { code: `(${t} === undefined ? (${t} = rt.dec(${ref})) : ${t})`, type: s.type };
    }
    return { code: s.type.kind === 'BIGINT' ? `rt.big(${ref})` : s.type.kind === 'BOOLEAN' ? `rt.bool(${ref})` : `(${ref} ?? null)`, type: s.type };
  };

  const items = def.projection !== undefined && def.projection.trim() !== '' ? projectItems(parseExpression(def.projection, 'projection', def.ruleIndex), def, sourceBindings, readSource, gen) : null;

  // The filter sees computed columns by their alias (Flink CDC's "filter on computed columns"), then the source's.
  const computedVars = new Map<string, { variable: string; item: Item }>();
  let filterCode: string | null = null;
  if (def.filter !== undefined && def.filter.trim() !== '') {
    const parsed = parseExpression(def.filter, 'filter', def.ruleIndex);
    const used = new Set<string>();
    const scope: CompileScope = gen.scope(parsed, 'filter', def, (name) => {
      const item = items?.find((i) => i.name === name && i.compiled);
      if (item) {
        used.add(name);
        let v = computedVars.get(name);
        if (!v) computedVars.set(name, (v = { variable: gen.temp(), item }));
        return { code: v.variable, type: item.column.type };
      }
      return readSource(name);
    });
    const f = compileNode(parsed.ast, scope);
    if (f.type.kind !== 'BOOLEAN' && f.type.kind !== 'NULL') scope.fail('type-mismatch', parsed.ast, `a filter is a condition, not ${typeText(f.type)}`);
    filterCode = f.code;
  }

  const columns = items ? items.map((i) => i.column) : def.columns.map((c) => passThroughColumn(c, sourceBindings.get(c.name)!.type));
  const body: string[] = [];
  for (const { variable, item } of computedVars.values()) body.push(`${variable} = ${item.compiled!.code};`);
  if (filterCode !== null) body.push(`if (!all && ${filterCode} !== true) return null;`);
  if (items) {
    const fields = items.map((i) => {
      const v = computedVars.get(i.name);
      const value = i.compiled ? outputCode(v && v.item === i ? { code: v.variable, type: i.compiled.type } : i.compiled) : i.passThroughCode;
      return `${JSON.stringify(i.name)}: ${value}`;
    });
    body.push(`return { ${fields.join(', ')} };`);
  } else body.push('return r;');
  const code = `${gen.temps.length ? `let ${gen.temps.join(', ')};\n` : ''}${body.join('\n')}`;
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- compiling the expression once is the point
  const make = new Function('rt', 'k', 'x', `return function transform(r, m, all) {\n${code}\n};`) as (rt: typeof RUNTIME_LIBRARY, k: readonly unknown[], x: EvaluationContext) => (r: RowImage, m: TransformRowMeta, all: boolean) => RowImage | null;
  const transform = make(RUNTIME_LIBRARY, gen.constants, ctx);
  return { columns, apply: (r, m) => transform(r, m, false), project: (r, m) => transform(r, m, true)!, code };
}

function passThroughColumn(c: CdcColumn, type: SqlType): ProjectedColumn {
  return { name: c.name, type, typeText: typeText(type), origin: 'column', sourceType: c.type };
}

/** A computed value as a row carries it: DECIMAL as its text at the type's scale. */
function outputCode(c: Compiled): string {
  return c.type.kind === 'DECIMAL' ? `rt.decOut(${c.code}, ${c.type.scale})` : c.code;
}

function projectItems(
  parsed: ParsedExpression,
  def: TransformDefinition,
  sources: Map<string, { column: CdcColumn; type: SqlType }>,
  readSource: (name: string) => ColumnBinding | undefined,
  gen: Generator,
): Item[] {
  const items: Item[] = [];
  const computedNames = new Set<string>();
  const scope: CompileScope = gen.scope(parsed, 'projection', def, readSource);
  const place = (item: Item, node: AstNode): void => {
    const at = items.findIndex((i) => i.name === item.name);
    if (at < 0) items.push(item);
    else if (item.compiled && computedNames.has(item.name)) scope.fail('duplicate-column', node, `column '${item.name}' is defined twice`);
    else if (item.compiled) items[at] = item; // `*, UPPER(name) AS name`: the computed one takes the column's place
    if (item.compiled) computedNames.add(item.name);
  };
  for (const col of parsed.ast as AstNode[]) {
    const expr = col.expr;
    const alias: string | null = col.as ?? null;
    const at = expr?.loc ? expr : col;
    if (expr.type === 'column_ref' && columnName(expr) === '*') {
      if (alias) scope.fail('syntax', at, '* takes no alias');
      for (const [name, s] of sources) place({ name, column: passThroughColumn(s.column, s.type), compiled: null, passThroughCode: `r[${JSON.stringify(name)}]` }, at);
      continue;
    }
    if (alias && alias in METADATA_COLUMNS) scope.fail('reserved-name', at, `'${alias}' is a metadata column and cannot be an alias`);
    if (expr.type === 'column_ref' && (!alias || alias === columnName(expr))) {
      const name = columnName(expr);
      const b = readSource(name);
      if (!b) scope.fail('unknown-column', expr, `unknown column '${name}'`);
      const s = sources.get(name);
      const column: ProjectedColumn = s ? passThroughColumn(s.column, s.type) : { name, type: T.string, typeText: 'STRING', origin: 'metadata' };
      place({ name, column, compiled: null, passThroughCode: s ? `r[${JSON.stringify(name)}]` : b.code }, at);
      continue;
    }
    if (!alias) scope.fail('syntax', expr, 'a computed column needs a name: <expression> AS <name>');
    const compiled = compileNode(expr, scope);
    const type = compiled.type.kind === 'NULL' ? T.string : compiled.type;
    place({ name: alias, column: { name: alias, type, typeText: typeText(type), origin: 'computed' }, compiled, passThroughCode: '' }, at);
  }
  return items;
}

/** Constants and temporaries of one generated function, and scopes that report errors in an expression's text. */
class Generator {
  readonly constants: unknown[] = [];
  readonly temps: string[] = [];

  temp(): string {
    const t = `t${this.temps.length}`;
    this.temps.push(t);
    return t;
  }

  scope(parsed: ParsedExpression, part: 'projection' | 'filter', def: TransformDefinition, resolve: (name: string) => ColumnBinding | undefined): CompileScope {
    return {
      resolve,
      constant: (value) => {
        this.constants.push(value);
        return `k[${this.constants.length - 1}]`;
      },
      temp: () => this.temp(),
      fail: (code: ExpressionErrorCode, node: AstNode, detail: string): never => {
        const offset = node?.loc?.start?.offset;
        throw new ExpressionError({ code, part, expression: parsed.text, ruleIndex: def.ruleIndex, position: offset !== undefined ? parsed.positionOf(offset) : undefined, detail });
      },
    };
  }
}
