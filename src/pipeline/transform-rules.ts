import type { TableRouter } from './table-router.ts';
import type { TransformDefinition } from './pipeline-definition.ts';

/** The transform rule that applies to a table: the first that matches (Flink CDC's rule), or undefined. */
export function firstMatchingTransform(transforms: readonly Pick<TransformDefinition, 'selector'>[], tableId: string): number | undefined {
  const i = transforms.findIndex((t) => t.selector.matches(tableId));
  return i < 0 ? undefined : i;
}

export interface ShadowedTransform {
  readonly rule: number;
  readonly shadowedBy: number;
  readonly table: string;
}

/**
 * Rules that can never apply because earlier rules take every table they could match. Decided
 * where it can be decided without the database's catalog: a rule whose every pattern is a literal
 * table id matched by an earlier rule, or is covered by an earlier pattern of as many parts whose
 * every part is '\.*' or the same as the later one's (`db.\.*` covers `db.orders_\d+`). A pattern rule that an earlier pattern rule merely overlaps is not
 * flagged (it may still apply to some tables).
 */
export function findShadowedTransforms(transforms: readonly Pick<TransformDefinition, 'selector'>[]): ShadowedTransform[] {
  const out: ShadowedTransform[] = [];
  transforms.forEach((t, j) => {
    const covers = t.selector.parts.map((pattern) => coveringRule(transforms, j, pattern));
    if (covers.every((c) => c !== undefined)) out.push({ rule: j, shadowedBy: covers[0]!.rule, table: covers[0]!.table });
  });
  return out;
}

function coveringRule(transforms: readonly Pick<TransformDefinition, 'selector'>[], before: number, pattern: readonly string[]): { rule: number; table: string } | undefined {
  const literal = pattern.every((p) => !/[\\^$.|?*+()[\]{}]/.test(p));
  for (let i = 0; i < before; i++) {
    const earlier = transforms[i]!.selector;
    if (literal && earlier.matches(pattern.join('.'))) return { rule: i, table: pattern.join('.') };
    if (earlier.parts.some((p) => p.length === pattern.length && p.every((part, n) => part === '.*' || part.toLowerCase() === pattern[n]!.toLowerCase()))) return { rule: i, table: pattern.join('.') };
  }
  return undefined;
}

export interface PrimaryKeyClaim {
  readonly table: string;
  readonly rule: number;
  readonly keys: readonly string[];
}

export interface PrimaryKeyConflict {
  readonly sinkTable: string;
  readonly claims: readonly PrimaryKeyClaim[];
}

/**
 * Sink tables that would get two primary keys: source tables routed to one sink table whose first
 * matching transform rules declare different `primary-keys` (compared as sets of column names,
 * without regard to case). A table whose rule declares none keeps its source's key, which only the
 * catalog knows: it is not a claim here. `tables` are the source table ids known: at `--check` the
 * literal ones the file names, at start the catalog's.
 */
export function findPrimaryKeyConflicts(transforms: readonly Pick<TransformDefinition, 'selector' | 'primaryKeys'>[], router: TableRouter, tables: readonly string[]): PrimaryKeyConflict[] {
  const bySink = new Map<string, PrimaryKeyClaim[]>();
  for (const table of tables) {
    const rule = firstMatchingTransform(transforms, table);
    const keys = rule === undefined ? undefined : transforms[rule]!.primaryKeys;
    if (rule === undefined || !keys) continue;
    for (const sink of router.route(table)) bySink.set(sink, [...(bySink.get(sink) ?? []), { table, rule, keys }]);
  }
  const out: PrimaryKeyConflict[] = [];
  for (const [sinkTable, claims] of bySink) {
    const distinct = new Set(claims.map((c) => normalized(c.keys)));
    if (distinct.size > 1) out.push({ sinkTable, claims });
  }
  return out;
}

function normalized(keys: readonly string[]): string {
  return [...new Set(keys.map((k) => k.toLowerCase()))].sort().join(',');
}
