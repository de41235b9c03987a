import { SCHEMA_CHANGE_TYPES, type SchemaChangeBehavior, type SchemaChangeType } from './pipeline-keys.ts';

/**
 * The types a word of `include.schema.changes` / `exclude.schema.changes` names, as Flink CDC: a
 * whole type ('drop.column') or words of types ('drop' is drop.column and drop.table, 'column'
 * every column change, 'table' every table change). Empty when it names none.
 */
export function schemaChangeTypesNamed(word: string): SchemaChangeType[] {
  const words = word.toLowerCase().split('.');
  return SCHEMA_CHANGE_TYPES.filter((t) => {
    const parts = t.split('.');
    return parts.some((_, i) => words.every((w, j) => parts[i + j] === w));
  });
}

/**
 * The schema change types a sink applies. Flink CDC's rules: every type unless `include` is given
 * (then create.table is added, as every later change needs the table); `exclude` wins over include;
 * in lenient mode, without an `exclude`, truncate.table and drop.table are not applied (no data is
 * lost by default).
 */
export function appliedSchemaChanges(behavior: SchemaChangeBehavior, include: readonly string[] | undefined, exclude: readonly string[] | undefined): SchemaChangeType[] {
  const included = new Set<SchemaChangeType>(include ? ['create.table', ...include.flatMap(schemaChangeTypesNamed)] : SCHEMA_CHANGE_TYPES);
  const excluded = new Set<SchemaChangeType>(exclude ? exclude.flatMap(schemaChangeTypesNamed) : behavior === 'lenient' ? ['truncate.table', 'drop.table'] : []);
  if (behavior === 'ignore') return [];
  return SCHEMA_CHANGE_TYPES.filter((t) => included.has(t) && !excluded.has(t));
}
