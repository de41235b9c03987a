import type { LogicalType } from '../connectors/database-sink/logical-type.ts';
import type { SinkColumn, SinkTableSchema } from '../connectors/database-sink/sink-table-schema.ts';
import { TypeNotMappedError } from '../connectors/database-sink/type-not-mapped-error.ts';
import type { RowImage } from '../connectors/cdc/change-record.ts';
import { logicalFromMySql } from '../connectors/mysql/mysql-logical-type.ts';
import { logicalFromPostgres } from '../connectors/postgres/postgres-logical-type.ts';
import { compileTransform, type CompiledTransform, type EvaluationContext, type ProjectedColumn, type SqlType, type TransformRowMeta } from './expression/index.ts';
import type { TransformDefinition } from './pipeline-definition.ts';
import type { SourceColumn } from './source-table-catalog.ts';

export type SourceDialect = 'mysql' | 'postgres';

/**
 * One source table's schema through its transform rule (or none): the sink table's schema its
 * rows have, and the compiled projection and filter. Made again after each schema change of the
 * table (a projection with `*` takes an added column).
 */
export interface TableTransform {
  readonly schema: SinkTableSchema;
  /** Undefined without a rule: rows pass unchanged. */
  apply(row: RowImage, meta: TransformRowMeta): RowImage | null;
  /** The row projected without the filter. */
  project(row: RowImage, meta: TransformRowMeta): RowImage;
  readonly passThrough: boolean;
}

/**
 * Compiles a table's rule for its columns. Types of the sink schema: a column passed through has
 * its source type read into a logical one (docs/pipeline-types.md); a computed column has the
 * type the expression compiler derives (DECIMAL(p, s) of arithmetic on decimals, STRING of text
 * functions and metadata columns...), read into the logical type of that name. Nullability: a
 * source column keeps its own, a computed column is nullable, a metadata column is not; primary
 * key columns are NOT NULL. The primary key is the rule's `primary-keys`, else the source's when
 * every column of it is in the result, else none.
 */
export function compileTableTransform(
  columns: readonly SourceColumn[],
  primaryKey: readonly string[],
  rule: { readonly index: number; readonly def: TransformDefinition } | undefined,
  dialect: SourceDialect,
  ctx: EvaluationContext,
): TableTransform {
  const projection = rule?.def.projection?.text;
  const filter = rule?.def.filter?.text;
  let compiled: CompiledTransform | undefined;
  if (rule && (projection !== undefined || filter !== undefined)) {
    compiled = compileTransform(
      { ...(projection !== undefined ? { projection } : {}), ...(filter !== undefined ? { filter } : {}), columns: columns.map((c) => ({ name: c.name, type: c.type })), dialect, ruleIndex: rule.index },
      ctx,
    );
  }
  const nullable = new Map(columns.map((c) => [c.name, c.nullable]));
  const out: { name: string; type: LogicalType; nullable: boolean }[] = compiled
    ? compiled.columns.map((p) => ({ name: p.name, type: logicalOfProjected(p, dialect), nullable: p.origin === 'column' ? (nullable.get(p.name) ?? true) : p.origin === 'computed' }))
    : columns.map((c) => ({ name: c.name, type: logicalOfSource(c.type, dialect, c.name), nullable: c.nullable }));
  const names = new Set(out.map((c) => c.name));
  const declared = rule?.def.primaryKeys;
  const key = declared ? [...declared] : primaryKey.every((k) => names.has(k)) ? [...primaryKey] : [];
  const sinkColumns: SinkColumn[] = out.map((c) => (key.includes(c.name) ? { ...c, nullable: false } : c));
  const c = compiled;
  return {
    schema: { columns: sinkColumns, primaryKey: key },
    apply: c ? (row, meta) => c.apply(row, meta) : (row) => row,
    project: c ? (row, meta) => c.project(row, meta) : (row) => row,
    passThrough: c === undefined,
  };
}

export function logicalOfSource(type: string, dialect: SourceDialect, column: string): LogicalType {
  try {
    return dialect === 'postgres' ? logicalFromPostgres(type) : logicalFromMySql(type);
  } catch (e) {
    if (e instanceof TypeNotMappedError) throw new TypeNotMappedError(e.dialect, e.type, column);
    throw e;
  }
}

function logicalOfProjected(p: ProjectedColumn, dialect: SourceDialect): LogicalType {
  if (p.origin === 'column' && p.sourceType !== undefined) return logicalOfSource(p.sourceType, dialect, p.name);
  return logicalOfSqlType(p.type, p.name);
}

/** The logical type of an expression's type (Flink CDC's type names on both sides). */
export function logicalOfSqlType(t: SqlType, column: string): LogicalType {
  switch (t.kind) {
    case 'BOOLEAN': case 'TINYINT': case 'SMALLINT': case 'INT': case 'BIGINT': case 'FLOAT': case 'DOUBLE':
      return { kind: t.kind };
    case 'DECIMAL': return { kind: 'DECIMAL', precision: t.precision ?? 38, scale: t.scale ?? 0 };
    case 'STRING': return t.precision !== undefined ? { kind: 'VARCHAR', length: t.precision } : { kind: 'STRING' };
    case 'BYTES': return { kind: 'BYTES' };
    case 'DATE': return { kind: 'DATE' };
    case 'TIME': case 'TIMESTAMP': case 'TIMESTAMP_LTZ': return { kind: t.kind, precision: t.precision ?? 0 };
    // A NULL literal's column: text, as Flink CDC types an untyped NULL.
    case 'NULL': return { kind: 'STRING' };
    case 'OTHER': throw new TypeNotMappedError('expression', t.source ?? 'OTHER', column);
  }
}
