import { formatLogicalType, type LogicalType } from '../connectors/database-sink/logical-type.ts';
import type { SinkTableSchema } from '../connectors/database-sink/sink-table-schema.ts';
import type { PipelineDefinition } from './pipeline-definition.ts';
import { RouteCannotHoldProblem } from './pipeline-problem.ts';
import { TableRouter } from './table-router.ts';

/** Kinds one sink column can take from several tables (a sink widens within a family: INT and BIGINT, VARCHAR(10) and VARCHAR(20)). */
const FAMILY: Record<LogicalType['kind'], string> = {
  BOOLEAN: 'boolean',
  TINYINT: 'number', SMALLINT: 'number', INT: 'number', BIGINT: 'number', FLOAT: 'number', DOUBLE: 'number', DECIMAL: 'number',
  CHAR: 'text', VARCHAR: 'text', STRING: 'text',
  BINARY: 'bytes', VARBINARY: 'bytes', BYTES: 'bytes',
  JSON: 'json', DATE: 'date', TIME: 'time', TIMESTAMP: 'timestamp', TIMESTAMP_LTZ: 'timestamp', ARRAY: 'array',
};

/**
 * Tables routed to one sink table must fit it together: a column that is a number in one table
 * and text (or a date...) in another has no sink type that holds both, and the rows of one would
 * be refused at the sink mid-run. `schemas`: each captured table's schema after its transform.
 */
export function checkRoutes(definition: Pick<PipelineDefinition, 'file' | 'routes' | 'pipeline'>, schemas: ReadonlyMap<string, SinkTableSchema>): RouteCannotHoldProblem[] {
  if (definition.routes.length === 0) return [];
  const router = new TableRouter(definition.routes, definition.pipeline.routeMode);
  const bySink = new Map<string, { table: string; schema: SinkTableSchema }[]>();
  for (const [table, schema] of schemas) for (const sink of router.route(table)) bySink.set(sink, [...(bySink.get(sink) ?? []), { table, schema }]);
  const problems: RouteCannotHoldProblem[] = [];
  for (const [sink, tables] of bySink) {
    const seen = new Map<string, { table: string; type: LogicalType }>();
    for (const { table, schema } of tables) {
      for (const c of schema.columns) {
        const first = seen.get(c.name);
        if (!first) seen.set(c.name, { table, type: c.type });
        else if (FAMILY[first.type.kind] !== FAMILY[c.type.kind]) {
          const rule = router.matchingRules(table)[0] ?? 0;
          const place = definition.routes[rule]!.place;
          problems.push(new RouteCannotHoldProblem({ file: definition.file, line: place.line, column: place.column, path: 'route' }, rule, sink, c.name, [
            { table: first.table, type: formatLogicalType(first.type) },
            { table, type: formatLogicalType(c.type) },
          ]));
        }
      }
    }
  }
  return problems;
}
