/**
 * The types expressions are checked with: Flink CDC's data types (its DataTypes), as far as weir's
 * CDC sources produce them. Each has one JS representation at run time (the same as the CDC
 * records': see mysql/column-codec.ts and postgres/pg-value-codec.ts), except DECIMAL, which is an
 * ExactDecimal inside an expression and its text in a row.
 */
export type SqlTypeKind =
  | 'BOOLEAN'
  | 'TINYINT'
  | 'SMALLINT'
  | 'INT'
  | 'BIGINT'
  | 'FLOAT'
  | 'DOUBLE'
  | 'DECIMAL'
  | 'STRING'
  | 'BYTES'
  | 'DATE'
  | 'TIME'
  | 'TIMESTAMP'
  | 'TIMESTAMP_LTZ'
  /** The type of a NULL literal: fits anything. */
  | 'NULL'
  /** A source type expressions cannot compute with (JSON, arrays, ...): may be projected, not computed. */
  | 'OTHER';

export interface SqlType {
  readonly kind: SqlTypeKind;
  /** DECIMAL: digits; TIMESTAMP, TIME: fractional digits; STRING: length when the source says (VARCHAR(n)). */
  readonly precision?: number;
  /** DECIMAL only. */
  readonly scale?: number;
  /** The source's own type text, for OTHER and for columns passed through unchanged. */
  readonly source?: string;
}

export const MAX_DECIMAL_PRECISION = 38;

export const T = {
  boolean: { kind: 'BOOLEAN' } as SqlType,
  int: { kind: 'INT' } as SqlType,
  bigint: { kind: 'BIGINT' } as SqlType,
  double: { kind: 'DOUBLE' } as SqlType,
  string: { kind: 'STRING' } as SqlType,
  bytes: { kind: 'BYTES' } as SqlType,
  date: { kind: 'DATE' } as SqlType,
  time: { kind: 'TIME', precision: 0 } as SqlType,
  null: { kind: 'NULL' } as SqlType,
  timestamp: (precision = 3): SqlType => ({ kind: 'TIMESTAMP', precision }),
  timestampLtz: (precision = 3): SqlType => ({ kind: 'TIMESTAMP_LTZ', precision }),
  decimal: (precision: number, scale: number): SqlType => ({
    kind: 'DECIMAL',
    precision: Math.min(Math.max(precision, 1), MAX_DECIMAL_PRECISION),
    scale: Math.min(scale, MAX_DECIMAL_PRECISION),
  }),
};

const INTEGER_KINDS: readonly SqlTypeKind[] = ['TINYINT', 'SMALLINT', 'INT', 'BIGINT'];
const NUMERIC_KINDS: readonly SqlTypeKind[] = [...INTEGER_KINDS, 'FLOAT', 'DOUBLE', 'DECIMAL'];
const TEMPORAL_KINDS: readonly SqlTypeKind[] = ['DATE', 'TIME', 'TIMESTAMP', 'TIMESTAMP_LTZ'];

export const isInteger = (t: SqlType): boolean => INTEGER_KINDS.includes(t.kind);
export const isNumeric = (t: SqlType): boolean => NUMERIC_KINDS.includes(t.kind);
export const isTemporal = (t: SqlType): boolean => TEMPORAL_KINDS.includes(t.kind);
export const isApproximate = (t: SqlType): boolean => t.kind === 'FLOAT' || t.kind === 'DOUBLE';

/** The DECIMAL an exact number converts to without loss (Flink's rule: INT is DECIMAL(10, 0)). */
export function asDecimal(t: SqlType): SqlType {
  switch (t.kind) {
    case 'DECIMAL':
      return t;
    case 'TINYINT':
      return T.decimal(3, 0);
    case 'SMALLINT':
      return T.decimal(5, 0);
    case 'INT':
      return T.decimal(10, 0);
    default:
      return T.decimal(19, 0);
  }
}

/** Flink CDC's type text ('DECIMAL(10, 2)', 'TIMESTAMP(3)', 'STRING'), for result schemas. */
export function typeText(t: SqlType): string {
  switch (t.kind) {
    case 'DECIMAL':
      return `DECIMAL(${t.precision}, ${t.scale})`;
    case 'TIMESTAMP':
    case 'TIME':
      return `${t.kind}(${t.precision ?? 0})`;
    case 'TIMESTAMP_LTZ':
      return `TIMESTAMP_LTZ(${t.precision ?? 0})`;
    case 'STRING':
      return t.precision !== undefined ? `VARCHAR(${t.precision})` : 'STRING';
    case 'OTHER':
      return t.source ?? 'OTHER';
    default:
      return t.kind;
  }
}

/** The least restrictive type of two (CASE branches, COALESCE, IN lists); null when there is none. */
export function commonType(a: SqlType, b: SqlType): SqlType | null {
  if (a.kind === 'NULL') return b;
  if (b.kind === 'NULL') return a;
  if (a.kind === b.kind && a.kind !== 'DECIMAL') {
    if (a.kind === 'STRING') return T.string;
    return (a.precision ?? 0) >= (b.precision ?? 0) ? a : b;
  }
  if (isNumeric(a) && isNumeric(b)) {
    if (isApproximate(a) || isApproximate(b)) return T.double;
    if (a.kind === 'DECIMAL' || b.kind === 'DECIMAL') {
      const da = asDecimal(a);
      const db = asDecimal(b);
      const scale = Math.max(da.scale!, db.scale!);
      return T.decimal(Math.max(da.precision! - da.scale!, db.precision! - db.scale!) + scale, scale);
    }
    return INTEGER_KINDS.indexOf(a.kind) >= INTEGER_KINDS.indexOf(b.kind) ? a : b;
  }
  if ((a.kind === 'TIMESTAMP' && b.kind === 'TIMESTAMP_LTZ') || (a.kind === 'TIMESTAMP_LTZ' && b.kind === 'TIMESTAMP')) return T.timestampLtz(Math.max(a.precision ?? 0, b.precision ?? 0));
  return null;
}
