import type { RouteMode } from './table-router.ts';
import type { TableSelector } from './table-selector.ts';
import type { SchemaChangeBehavior, SchemaChangeType, SinkType, SourceType } from './pipeline-keys.ts';
import type { PlacedText } from './yaml-source.ts';

/** Where a block or rule is written (1-based). */
export interface Place {
  readonly line: number;
  readonly column: number;
}

export interface SourceDefinition {
  readonly type: SourceType;
  readonly name: string | undefined;
  /** Every key set, by its Flink CDC name, converted (durations in ms, lists as lists). */
  readonly options: Readonly<Record<string, unknown>>;
  readonly tables: TableSelector;
  readonly excludedTables: TableSelector | undefined;
  readonly place: Place;
}

export interface SinkDefinition {
  readonly type: SinkType;
  readonly name: string | undefined;
  readonly options: Readonly<Record<string, unknown>>;
  /** The schema change types applied at the sink, after include/exclude and the behaviour's defaults. */
  readonly schemaChanges: readonly SchemaChangeType[];
  readonly place: Place;
}

export interface RouteDefinition {
  readonly sourceTable: string;
  readonly sinkTable: string;
  readonly replaceSymbol: string | undefined;
  readonly description: string | undefined;
  readonly place: Place;
}

/**
 * A transform rule. `projection` and `filter` are kept as written with their places: the
 * expression compiler parses them and names positions in the file.
 */
export interface TransformDefinition {
  readonly sourceTable: string;
  readonly selector: TableSelector;
  readonly projection: PlacedText | undefined;
  readonly filter: PlacedText | undefined;
  readonly primaryKeys: readonly string[] | undefined;
  readonly partitionKeys: readonly string[] | undefined;
  readonly description: string | undefined;
  readonly place: Place;
}

export interface PipelineSettings {
  readonly name: string | undefined;
  readonly parallelism: number | undefined;
  readonly localTimeZone: string | undefined;
  readonly schemaChangeBehavior: SchemaChangeBehavior;
  readonly routeMode: RouteMode;
  /** weir configuration keys set in the block (name and parallelism included, as pipeline.name and parallelism.default), as written: buildConfig checks them again when the job is made. */
  readonly config: Readonly<Record<string, unknown>>;
}

/** A checked pipeline file. */
export interface PipelineDefinition {
  readonly file: string;
  readonly source: SourceDefinition;
  readonly sink: SinkDefinition;
  readonly routes: readonly RouteDefinition[];
  readonly transforms: readonly TransformDefinition[];
  readonly pipeline: PipelineSettings;
}
