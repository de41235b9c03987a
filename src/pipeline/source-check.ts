import type { SinkTableSchema } from '../connectors/database-sink/sink-table-schema.ts';
import type { PipelineDefinition } from './pipeline-definition.ts';
import type { PipelineProblem } from './pipeline-problem.ts';
import { openSourceCatalog, type SourceTableCatalog } from './source-table-catalog.ts';
import { checkRoutes } from './route-check.ts';
import { checkTransforms } from './transform-check.ts';

export type SourceCheck =
  | { readonly reached: true; readonly tables: number; readonly problems: readonly PipelineProblem[] }
  | { readonly reached: false; readonly reason: string };

/**
 * The file against the source's catalog, before anything runs: every transform rule compiled for
 * every captured table it applies to (a projection naming a column the table lacks, a type that
 * does not fit), as the job would at its start, and the tables each route merges (checkRoutes). A source that cannot be reached in `timeoutMs`
 * leaves the columns unchecked: the run reports the connection's own error.
 */
export async function checkAgainstSource(definition: PipelineDefinition, timeoutMs = 5_000, open: (d: PipelineDefinition) => SourceTableCatalog = (d) => openSourceCatalog(d.source)): Promise<SourceCheck> {
  const catalog = open(definition);
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer in ${timeoutMs} ms`)), timeoutMs);
    });
    const tables = await Promise.race([catalog.readTables(), timeout]);
    const schemas = new Map<string, SinkTableSchema>();
    const problems = checkTransforms(definition, tables, schemas);
    return { reached: true, tables: tables.length, problems: [...problems, ...checkRoutes(definition, schemas)] };
  } catch (e) {
    return { reached: false, reason: (e as Error).message };
  } finally {
    clearTimeout(timer);
    void catalog.close().catch(() => {});
  }
}
