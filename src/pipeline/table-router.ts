import { compile, TablePatternError } from './table-selector.ts';

/** One route: source tables (a pattern) to a sink table. */
export interface RouteRule {
  readonly sourceTable: string;
  readonly sinkTable: string;
  readonly replaceSymbol?: string;
  readonly description?: string;
}

/** Flink CDC's route-mode: every matching rule applies (a table may go to several sink tables), or only the first. */
export type RouteMode = 'ALL_MATCH' | 'FIRST_MATCH';

interface CompiledRoute {
  readonly rule: RouteRule;
  readonly regex: RegExp;
}

/**
 * Where each source table goes, as Flink CDC's TableIdRouter: a rule's `source-table` is one
 * regular expression over the whole table id ('.' separates the parts, '\.' is "any character",
 * ',' means "or"), matched whole and with regard to case. Every matching rule sends the table to
 * its sink table (ALL_MATCH, the default) or only the first (FIRST_MATCH); a table no rule matches
 * keeps its id. A sink table is the rule's `sink-table` with `replace-symbol` replaced by the source
 * table's name, or else with `$1`, `${name}` replaced by the pattern's groups (Java's replacement
 * syntax; `\$` is a dollar). Unlike Flink CDC's Matcher.replaceAll, a pattern that can match the
 * empty string does not add a second copy of the replacement.
 */
export class TableRouter {
  readonly mode: RouteMode;
  readonly #routes: readonly CompiledRoute[];

  /** Throws RoutePatternError naming the rule whose pattern or replacement is bad. */
  constructor(rules: readonly RouteRule[], mode: RouteMode = 'ALL_MATCH') {
    this.mode = mode;
    this.#routes = rules.map((rule, index) => {
      const regex = routeRegExp(rule.sourceTable, index);
      if (rule.replaceSymbol === undefined) checkGroupReferences(rule, regex, index);
      return { rule, regex };
    });
  }

  /** The sink tables of a source table id ('db.table', 'schema.table'), in the order of the rules; never empty. */
  route(tableId: string): string[] {
    const out: string[] = [];
    for (const { rule, regex } of this.#routes) {
      const m = regex.exec(tableId);
      if (!m) continue;
      const sink = rule.replaceSymbol !== undefined ? rule.sinkTable.split(rule.replaceSymbol).join(tableName(tableId)) : expandReplacement(rule.sinkTable, m);
      if (!out.includes(sink)) out.push(sink);
      if (this.mode === 'FIRST_MATCH') break;
    }
    return out.length > 0 ? out : [tableId];
  }

  /** The indexes of the rules that match a table id. */
  matchingRules(tableId: string): number[] {
    return this.#routes.flatMap((r, i) => (r.regex.test(tableId) ? [i] : [])).slice(0, this.mode === 'FIRST_MATCH' ? 1 : undefined);
  }
}

/** A route whose source-table is not a regular expression, or whose sink-table names a group the pattern lacks. */
export class RoutePatternError extends Error {
  readonly rule: number;
  readonly key: 'source-table' | 'sink-table';
  constructor(rule: number, key: 'source-table' | 'sink-table', message: string, cause?: unknown) {
    super(`route rule ${rule + 1}: ${key}: ${message}`, cause === undefined ? undefined : { cause });
    this.name = 'RoutePatternError';
    this.rule = rule;
    this.key = key;
  }
}

/** Flink CDC's convertTableListToRegExpPattern, anchored. */
export function routeRegExpSource(sourceTable: string): string {
  const alternatives = sourceTable.split(',').map((s) => s.trim()).join('|');
  const PLACEHOLDER = '\u0000';
  return alternatives.replaceAll('\\.', PLACEHOLDER).replaceAll('.', '\\.').replaceAll(PLACEHOLDER, '.');
}

function routeRegExp(sourceTable: string, index: number): RegExp {
  try {
    return compile(`^(?:${routeRegExpSource(sourceTable)})$`, '', sourceTable);
  } catch (e) {
    throw new RoutePatternError(index, 'source-table', e instanceof TablePatternError ? (e.cause as Error).message : String(e), e);
  }
}

function tableName(tableId: string): string {
  return tableId.slice(tableId.lastIndexOf('.') + 1);
}

function checkGroupReferences(rule: RouteRule, regex: RegExp, index: number): void {
  const groups = new RegExp(`${regex.source}|`).exec('')!.length - 1;
  const names = new Set(Object.keys(new RegExp(`${regex.source}|`).exec('')!.groups ?? {}));
  for (const ref of groupReferences(rule.sinkTable)) {
    if (typeof ref === 'number' ? ref > groups : !names.has(ref)) {
      throw new RoutePatternError(index, 'sink-table', `'${rule.sinkTable}' refers to group ${typeof ref === 'number' ? `$${ref}` : `\${${ref}}`}, but '${rule.sourceTable}' has ${groups} group${groups === 1 ? '' : 's'}${names.size > 0 ? ` (${[...names].join(', ')})` : ''}`);
    }
  }
}

/** The groups a replacement refers to: numbers for `$n`, names for `${name}` (the first digit only, as Java reads it when no longer group exists). */
function groupReferences(template: string): (number | string)[] {
  const out: (number | string)[] = [];
  for (let i = 0; i < template.length; i++) {
    if (template[i] === '\\') i++;
    else if (template[i] === '$') {
      const named = /^\{([A-Za-z][A-Za-z0-9]*)\}/.exec(template.slice(i + 1));
      if (named) out.push(named[1]!);
      else if (/\d/.test(template[i + 1] ?? '')) out.push(Number(template[i + 1]));
    }
  }
  return out;
}

/** Java's Matcher replacement: `$n` (more digits while such a group exists), `${name}`, `\x` for x. */
export function expandReplacement(template: string, m: RegExpExecArray): string {
  let out = '';
  for (let i = 0; i < template.length; i++) {
    const c = template[i]!;
    if (c === '\\') {
      out += template[++i] ?? '';
    } else if (c === '$') {
      const named = /^\{([A-Za-z][A-Za-z0-9]*)\}/.exec(template.slice(i + 1));
      if (named) {
        out += m.groups?.[named[1]!] ?? '';
        i += named[0].length;
        continue;
      }
      if (!/\d/.test(template[i + 1] ?? '')) {
        out += c;
        continue;
      }
      let n = Number(template[++i]);
      while (/\d/.test(template[i + 1] ?? '') && n * 10 + Number(template[i + 1]) < m.length) n = n * 10 + Number(template[++i]);
      out += m[n] ?? '';
    } else {
      out += c;
    }
  }
  return out;
}
