import { ExpressionError, type ExpressionErrorCode } from './expression/index.ts';
import type { SinkTableSchema } from '../connectors/database-sink/sink-table-schema.ts';
import type { PipelineDefinition, TransformDefinition } from './pipeline-definition.ts';
import { BadExpressionProblem } from './pipeline-problem.ts';
import type { SourceTableSchema } from './source-table-catalog.ts';
import { compileTableTransform } from './table-transform.ts';
import { firstMatchingTransform } from './transform-rules.ts';
import { placeWithin } from './yaml-source.ts';

/** What a compile without the source's columns cannot tell from a real problem: every column is unknown to it. */
const NEEDS_COLUMNS: ReadonlySet<ExpressionErrorCode> = new Set(['unknown-column', 'type-mismatch', 'wrong-arguments']);

const EVALUATION = { clock: () => 0, timeZone: 'UTC' };

/**
 * Each transform rule compiled as the job will compile it: against every captured source table
 * it is the first rule for (`tables`, from the source's catalog), or, without the catalog,
 * against no columns, which still finds syntax, unknown functions and aliases (the file's own
 * problems). A refusal becomes a problem at its place in the file. `schemas` gets each table's
 * schema after its transform (for checkRoutes).
 */
export function checkTransforms(definition: Pick<PipelineDefinition, 'file' | 'source' | 'transforms'>, tables?: readonly SourceTableSchema[], schemas?: Map<string, SinkTableSchema>): BadExpressionProblem[] {
  const dialect = definition.source.type === 'postgres' ? 'postgres' : 'mysql';
  const problems = new Map<string, BadExpressionProblem>();
  const compile = (index: number, table: SourceTableSchema | undefined, def: TransformDefinition = definition.transforms[index]!) => {
    try {
      const compiled = compileTableTransform(table?.columns ?? [], table?.primaryKey ?? [], { index, def }, dialect, EVALUATION);
      if (table) schemas?.set(table.id, compiled.schema);
    } catch (e) {
      if (!(e instanceof ExpressionError) || (!table && NEEDS_COLUMNS.has(e.code))) return;
      const problem = new BadExpressionProblem(placeOf(definition.file, def, e), index, table?.id, e);
      // One problem per rule and message: shards with the same columns fail alike.
      problems.set(`${index} ${e.message}`, problems.get(`${index} ${e.message}`) ?? problem);
    }
  };
  if (tables) {
    for (const t of tables) {
      const index = firstMatchingTransform(definition.transforms, t.id);
      if (index !== undefined) compile(index, t);
      else schemas?.set(t.id, compileTableTransform(t.columns, t.primaryKey, undefined, dialect, EVALUATION).schema);
    }
  } else {
    // Apart, so that the projection's unknown (to this check) columns do not hide the filter's syntax.
    definition.transforms.forEach((def, i) => {
      compile(i, undefined, { ...def, filter: undefined });
      compile(i, undefined, { ...def, projection: undefined });
    });
  }
  return [...problems.values()];
}

function placeOf(file: string, def: TransformDefinition, e: ExpressionError): { file: string; line: number; column: number; path: string } {
  const placed = e.part === 'projection' ? def.projection : def.filter;
  if (!placed) return { file, line: def.place.line, column: def.place.column, path: `transform.${e.part}` };
  const { line, column } = placeWithin(placed, e.position?.offset ?? 0);
  return { file, line, column, path: `transform.${e.part}` };
}
