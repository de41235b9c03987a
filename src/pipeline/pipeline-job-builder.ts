import type { StreamExecutionEnvironment } from '../api/stream-execution-environment.ts';
import type { ConfigKey } from '../config/configuration.ts';
import { routedTableKey } from '../connectors/database-sink/routed-change.ts';
import type { PipelineDefinition } from './pipeline-definition.ts';
import type { PipelineChange } from './pipeline-change.ts';
import { TRANSFORM_ROUTE_UID } from './pipeline-figures.ts';
import { pipelineSink } from './pipeline-sink-factory.ts';
import { pipelineSource } from './pipeline-source-factory.ts';
import { RouteTransformFunction, tableIdOf } from './route-transform-function.ts';
import type { CdcChangeRecord } from '../connectors/cdc/change-record.ts';
import { openSourceCatalog } from './source-table-catalog.ts';
import { TableRouter } from './table-router.ts';

/** Checkpoints every 10 s unless the pipeline block (or -D) says otherwise: a pipeline's sinks commit at checkpoints. */
export const DEFAULT_PIPELINE_CHECKPOINT_INTERVAL_MS = 10_000;

/**
 * The job of a checked pipeline: CDC source -> transform and route -> keyBy(sink table) -> sink.
 * The `pipeline` block's weir keys are the job's settings (the command line's -p and -D win).
 */
export function buildPipelineJob(env: StreamExecutionEnvironment, def: PipelineDefinition): void {
  env.enableCheckpointing({ interval: DEFAULT_PIPELINE_CHECKPOINT_INTERVAL_MS, mode: 'exactly-once' });
  for (const [key, value] of Object.entries(def.pipeline.config)) env.set(key as ConfigKey, value as string);
  const source = def.source;
  const attachSink = pipelineSink(def.sink, def.pipeline);
  const router = new TableRouter(def.routes, def.pipeline.routeMode);
  const timeZone = def.pipeline.localTimeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
  const changes = env
    .fromSource(pipelineSource(source), { name: `Source: ${source.name ?? source.type}`, uid: 'pipeline-source' })
    // Keyed by source table: each table's schema is keyed state, restored with the log position it belongs to.
    .keyBy((r: CdcChangeRecord) => (r.op === 'ddl' ? `${r.schemaChange!.schema.db}.${r.schemaChange!.schema.table}` : tableIdOf(r)))
    .process(
      () =>
        new RouteTransformFunction({
          router,
          transforms: def.transforms,
          dialect: source.type === 'postgres' ? 'postgres' : 'mysql',
          namespace: source.type === 'postgres' ? String(source.options['database']) : null,
          evaluation: { clock: Date.now, timeZone },
          catalog: () => openSourceCatalog(source),
        }),
      { name: 'Transform and route', uid: TRANSFORM_ROUTE_UID },
    );
  attachSink(changes.keyBy((c: PipelineChange) => routedTableKey(c)));
}
