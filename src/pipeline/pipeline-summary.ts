import type { PipelineDefinition } from './pipeline-definition.ts';

/** What `weir pipeline --check` prints for a good file: what it reads, where it sends it, how. */
export function pipelineSummary(d: PipelineDefinition): string {
  const s = d.source;
  const o = s.options;
  const lines = [
    `pipeline ${d.pipeline.name ?? '(unnamed)'}: parallelism ${d.pipeline.parallelism ?? 1}, schema.change.behavior ${d.pipeline.schemaChangeBehavior}, route-mode ${d.pipeline.routeMode}${d.pipeline.localTimeZone ? `, local-time-zone ${d.pipeline.localTimeZone}` : ''}`,
    `source: ${s.type} ${String(o['hostname'])}:${String(o['port'] ?? (s.type === 'postgres' ? 5432 : 3306))}${o['database'] ? ` database ${String(o['database'])}` : ''}, startup ${String(o['scan.startup.mode'] ?? 'initial')}`,
    `  tables: ${s.tables.text}${s.excludedTables ? ` (except ${s.excludedTables.text})` : ''}`,
    `routes: ${d.routes.length === 0 ? 'none (every table keeps its id)' : `(${d.pipeline.routeMode === 'ALL_MATCH' ? 'every matching rule applies' : 'the first matching rule applies'}; unmatched tables keep their ids)`}`,
    ...d.routes.map((r, i) => `  ${i + 1}. ${r.sourceTable} -> ${r.sinkTable}${r.replaceSymbol ? ` (replace-symbol ${r.replaceSymbol})` : ''}${r.description ? `  # ${r.description}` : ''}`),
    `transforms: ${d.transforms.length === 0 ? 'none' : '(the first matching rule applies)'}`,
    ...d.transforms.map((t, i) =>
      [
        `  ${i + 1}. ${t.sourceTable}`,
        t.projection ? `projection: ${t.projection.text}` : undefined,
        t.filter ? `filter: ${t.filter.text}` : undefined,
        t.primaryKeys ? `primary-keys: ${t.primaryKeys.join(', ')}` : undefined,
        t.partitionKeys ? `partition-keys: ${t.partitionKeys.join(', ')}` : undefined,
      ]
        .filter((x) => x !== undefined)
        .join('; '),
    ),
    `sink: ${d.sink.type}${sinkWhere(d)}, schema changes applied: ${d.sink.schemaChanges.length === 0 ? 'none' : d.sink.schemaChanges.join(', ')}`,
  ];
  const config = Object.entries(d.pipeline.config).filter(([k]) => k !== 'pipeline.name' && k !== 'parallelism.default');
  if (config.length > 0) lines.push(`weir configuration: ${config.map(([k, v]) => `${k}=${String(v)}`).join(', ')}`);
  return lines.join('\n') + '\n';
}

function sinkWhere(d: PipelineDefinition): string {
  const o = d.sink.options;
  switch (d.sink.type) {
    case 'postgres':
    case 'mysql':
      return ` ${String(o['hostname'])}:${String(o['port'] ?? (d.sink.type === 'postgres' ? 5432 : 3306))}${o['database'] ? ` database ${String(o['database'])}` : ''}, mode ${String(o['sink.mode'] ?? 'changelog')}`;
    case 'kafka':
      return ` ${(o['properties.bootstrap.servers'] as string[]).join(',')}${o['topic'] ? ` topic ${String(o['topic'])}` : ''}, ${String(o['value.format'] ?? 'debezium-json')}, ${String(o['sink.delivery-guarantee'] ?? 'exactly-once')}`;
    case 'jetstream':
      return ` ${(o['servers'] as string[]).join(',')} stream ${String(o['stream'])}, ${String(o['value.format'] ?? 'debezium-json')}, ${String(o['sink.delivery-guarantee'] ?? 'exactly-once')}`;
    case 'files':
      return ` ${String(o['path'])}, ${String(o['value.format'] ?? 'debezium-json')}`;
    case 'print':
      return '';
  }
}
