import { acceptedSchemaChanges, schemaChangeTagMatches } from '../connectors/database-sink/schema-change-behavior.ts';
import { SCHEMA_CHANGE_KINDS, type SinkSchemaChangeKind } from '../connectors/database-sink/sink-table-schema.ts';
import type { SchemaChangeBehavior } from './pipeline-keys.ts';

/** The types a word of `include.schema.changes` / `exclude.schema.changes` names (Flink CDC's families). Empty when it names none. */
export function schemaChangeTypesNamed(word: string): SinkSchemaChangeKind[] {
  return SCHEMA_CHANGE_KINDS.filter((k) => schemaChangeTagMatches(word, k));
}

/** The schema change types a sink applies, by the database sinks' rules (schema-change-behavior.ts). */
export function appliedSchemaChanges(behavior: SchemaChangeBehavior, include: readonly string[] | undefined, exclude: readonly string[] | undefined): SinkSchemaChangeKind[] {
  const accepted = acceptedSchemaChanges(behavior, { include, exclude });
  return SCHEMA_CHANGE_KINDS.filter((k) => accepted.has(k));
}
