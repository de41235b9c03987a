import type { Source } from '../api/source.ts';
import type { CdcChangeRecord } from '../connectors/cdc/change-record.ts';
import { MySqlCdcSource } from '../connectors/mysql/mysql-cdc-source.ts';
import { PostgresCdcSource } from '../connectors/postgres/postgres-cdc-source.ts';
import type { SourceDefinition } from './pipeline-definition.ts';
import { mySqlCdcOptionsOf, postgresCdcOptionsOf } from './source-options.ts';

/**
 * The CDC source of a pipeline's `source` block. Schema changes are records of the stream (unless
 * `schema-change.enabled: false`) and tables that come to match the patterns while the pipeline
 * runs are captured (Flink CDC's scan.newly-added-table.enabled, on unless the file turns it
 * off): a pipeline follows the whole database.
 */
export function pipelineSource(s: SourceDefinition): Source<CdcChangeRecord, any> {
  if (s.type === 'postgres') return new PostgresCdcSource(postgresCdcOptionsOf(s)) as unknown as Source<CdcChangeRecord, any>;
  return new MySqlCdcSource(mySqlCdcOptionsOf(s)) as unknown as Source<CdcChangeRecord, any>;
}
