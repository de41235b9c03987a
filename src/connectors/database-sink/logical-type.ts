/**
 * A column's type between dialects, in Flink CDC's type names: a source's column type (MySQL's
 * 'int(10) unsigned', PostgreSQL's 'int4') is read into one of these, and a sink renders it in its
 * own dialect when it creates a table or changes a column. Nullability is the column's, not the
 * type's (see SinkColumn).
 */
export type LogicalType =
  | { readonly kind: 'BOOLEAN' | 'TINYINT' | 'SMALLINT' | 'INT' | 'BIGINT' | 'FLOAT' | 'DOUBLE' }
  /** `precision` absent: PostgreSQL's unconstrained numeric (any digits). */
  | { readonly kind: 'DECIMAL'; readonly precision?: number; readonly scale: number }
  | { readonly kind: 'CHAR' | 'VARCHAR' | 'BINARY' | 'VARBINARY'; readonly length: number }
  /** Text and bytes without a declared length (TEXT, LONGTEXT, BLOB, bytea). */
  | { readonly kind: 'STRING' | 'BYTES' | 'JSON' | 'DATE' }
  /** `precision`: fractional second digits. TIMESTAMP_LTZ is an instant (MySQL TIMESTAMP, PostgreSQL timestamptz). */
  | { readonly kind: 'TIME' | 'TIMESTAMP' | 'TIMESTAMP_LTZ'; readonly precision: number }
  | { readonly kind: 'ARRAY'; readonly element: LogicalType };

/** Flink CDC's text of a type: 'DECIMAL(10, 2)', 'VARCHAR(20)', 'TIMESTAMP(3)', 'ARRAY<INT>'. */
export function formatLogicalType(t: LogicalType): string {
  switch (t.kind) {
    case 'DECIMAL':
      return t.precision === undefined ? 'DECIMAL' : `DECIMAL(${t.precision}, ${t.scale})`;
    case 'CHAR':
    case 'VARCHAR':
    case 'BINARY':
    case 'VARBINARY':
      return `${t.kind}(${t.length})`;
    case 'TIME':
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
      return `${t.kind}(${t.precision})`;
    case 'ARRAY':
      return `ARRAY<${formatLogicalType(t.element)}>`;
    default:
      return t.kind;
  }
}

export function sameLogicalType(a: LogicalType, b: LogicalType): boolean {
  return formatLogicalType(a) === formatLogicalType(b);
}
