import { SCHEMA_CHANGE_KINDS, type SinkSchemaChangeKind } from './sink-table-schema.ts';

/**
 * What a sink does with a source's schema changes (Flink CDC's `schema.change.behavior`):
 * - exception: any change but create.table fails the job (no restart: the change comes again);
 * - evolve: every change is applied; one that fails fails the attempt, and the job restarts;
 * - try_evolve: every change is tried; one the target refuses is logged and rows are fitted to
 *   the table as it is;
 * - lenient (the default): nothing is lost: a dropped column stays (made nullable), a renamed one
 *   is added beside the old, an added one is nullable; drop.table and truncate.table are not sent;
 * - ignore: only create.table; rows are fitted to the table as it is.
 */
export const SCHEMA_CHANGE_BEHAVIORS = ['exception', 'evolve', 'try_evolve', 'lenient', 'ignore'] as const;
export type SchemaChangeBehavior = (typeof SCHEMA_CHANGE_BEHAVIORS)[number];
export const DEFAULT_SCHEMA_CHANGE_BEHAVIOR: SchemaChangeBehavior = 'lenient';

/**
 * `include.schema.changes` / `exclude.schema.changes`: tags that are a kind ('add.column') or a
 * part of kinds' names, as Flink CDC's families ('drop' is drop.column and drop.table, 'column'
 * every column change, 'table' create, drop and truncate), or 'all'. Exclude wins over include.
 */
export interface SchemaChangeTypeFilter {
  readonly include?: readonly string[];
  readonly exclude?: readonly string[];
}

/** Whether a tag names the kind: 'all', or words that follow each other in its name ('drop', 'column', 'column.type', 'add.column'). */
export function schemaChangeTagMatches(tag: string, kind: SinkSchemaChangeKind): boolean {
  const words = tag.trim().toLowerCase().split('.');
  if (words.length === 1 && words[0] === 'all') return true;
  const parts = kind.split('.');
  return parts.some((_, i) => words.every((w, j) => parts[i + j] === w));
}

/** Tags that match no kind: each is a mistake in the file (the caller names where). */
export function unknownSchemaChangeTags(tags: readonly string[]): string[] {
  return tags.filter((tag) => !SCHEMA_CHANGE_KINDS.some((k) => schemaChangeTagMatches(tag, k)));
}

/**
 * The kinds a sink applies, after behaviour and filter. An explicit include always brings
 * create.table unless it is excluded (every later change builds on it); lenient excludes
 * drop.table and truncate.table unless an exclude list is given (FLINK-36514); ignore and
 * exception take create.table only.
 */
export function acceptedSchemaChanges(behavior: SchemaChangeBehavior, filter: SchemaChangeTypeFilter = {}): ReadonlySet<SinkSchemaChangeKind> {
  const include = filter.include;
  const exclude = filter.exclude ?? (behavior === 'lenient' ? ['drop.table', 'truncate.table'] : []);
  const accepted = new Set<SinkSchemaChangeKind>();
  for (const kind of SCHEMA_CHANGE_KINDS) {
    const included = include === undefined || kind === 'create.table' || include.some((t) => schemaChangeTagMatches(t, kind));
    if (!included || exclude.some((t) => schemaChangeTagMatches(t, kind))) continue;
    if ((behavior === 'ignore' || behavior === 'exception') && kind !== 'create.table') continue;
    accepted.add(kind);
  }
  return accepted;
}
