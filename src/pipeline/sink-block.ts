import type { YAMLMap } from 'yaml';
import type { BlockReader, ReadValue } from './block-reader.ts';
import { BadValueProblem } from './pipeline-problem.ts';
import { SINK_KEYS, SINK_TYPES, type SchemaChangeBehavior, type KeySpec } from './pipeline-keys.ts';
import type { SinkDefinition } from './pipeline-definition.ts';
import { appliedSchemaChanges, schemaChangeTypesNamed } from './schema-change-types.ts';
import type { YamlSource } from './yaml-source.ts';

/** Reads the `sink` block; the schema change types it applies depend on the pipeline's behaviour. */
export function readSinkBlock(src: YamlSource, reader: BlockReader, map: YAMLMap, behavior: SchemaChangeBehavior): SinkDefinition | undefined {
  const typeEntry = reader.entries(map).find((e) => e.key === 'type');
  const typeText = typeEntry?.value && 'value' in typeEntry.value ? String((typeEntry.value as { value: unknown }).value) : undefined;
  const type = SINK_TYPES.find((t) => t === typeText?.toLowerCase());
  const specs = SINK_KEYS[type ?? 'print'];
  
  const values = reader.read(map, 'sink', `sink${type ? ` (${type})` : ''}`, type ? specs : anyTypeKeys(SINK_KEYS));
  if (!type || !values.has('type')) return undefined;
  const include = checkedChangeTypes(src, reader, values.get('include.schema.changes'), 'sink.include.schema.changes');
  const exclude = checkedChangeTypes(src, reader, values.get('exclude.schema.changes'), 'sink.exclude.schema.changes');
  checkTopicMapping(src, reader, values.get('sink.tableId-to-topic.mapping'));
  const options = Object.fromEntries([...values].map(([k, v]) => [k, v.value]));
  const name = values.get('name')?.value as string | undefined;
  return { type, name, options, schemaChanges: appliedSchemaChanges(behavior, include, exclude), place: src.placeOf(map, '') };
}

function checkedChangeTypes(src: YamlSource, reader: BlockReader, read: ReadValue | undefined, path: string): string[] | undefined {
  if (!read) return undefined;
  const words = read.value as string[];
  for (const w of words) {
    if (schemaChangeTypesNamed(w).length === 0) {
      reader.report(new BadValueProblem(src.placeOf(read.node, path), `'${w}' names no schema change type: add.column, alter.column.type, create.table, drop.column, drop.table, rename.column, truncate.table, or words of them ('drop', 'column', 'table')`));
    }
  }
  return words;
}

function checkTopicMapping(src: YamlSource, reader: BlockReader, read: ReadValue | undefined): void {
  if (!read) return;
  for (const entry of String(read.value).split(';').filter((e) => e.trim() !== '')) {
    if (!/^[^:]+:[^:]+$/.test(entry.trim())) {
      reader.report(new BadValueProblem(src.placeOf(read.node, 'sink.sink.tableId-to-topic.mapping'), `'${entry}' is not table:topic (mappings are 'db.t1:topic1;db.t2:topic2')`));
    }
  }
}

/** With the type unknown, the keys of every type (none required): the type's own problem is the one to report. */
function anyTypeKeys(all: Readonly<Record<string, readonly KeySpec[]>>): KeySpec[] {
  const byKey = new Map<string, KeySpec>();
  for (const spec of Object.values(all).flat()) if (!byKey.has(spec.key)) byKey.set(spec.key, { ...spec, required: spec.key === 'type' });
  return [...byKey.values()];
}
