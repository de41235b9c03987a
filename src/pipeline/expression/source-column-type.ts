import type { LogicalType } from '../../connectors/database-sink/logical-type.ts';
import { TypeNotMappedError } from '../../connectors/database-sink/type-not-mapped-error.ts';
import { logicalFromMySql } from '../../connectors/mysql/mysql-logical-type.ts';
import { logicalFromPostgres } from '../../connectors/postgres/postgres-logical-type.ts';
import { T, type SqlType } from './sql-type.ts';

/**
 * The expression type of a source column from its type text as weir's CDC schema records give it
 * (CdcColumn.type: MySQL's COLUMN_TYPE 'decimal(10,2) unsigned', PostgreSQL's 'numeric(10,2)',
 * 'int4'), read by the same mapping the sinks create tables with (docs/pipeline-types.md). Types
 * expressions cannot compute with (JSON, arrays, what has no mapping) are OTHER: they may be
 * projected unchanged.
 */
export function sourceColumnTypeOf(typeText: string, dialect: 'mysql' | 'postgres'): SqlType {
  try {
    return sqlTypeOf(dialect === 'mysql' ? logicalFromMySql(typeText) : logicalFromPostgres(typeText), typeText);
  } catch (e) {
    if (e instanceof TypeNotMappedError) return { kind: 'OTHER', source: typeText };
    throw e;
  }
}

function sqlTypeOf(t: LogicalType, typeText: string): SqlType {
  switch (t.kind) {
    case 'BOOLEAN': case 'TINYINT': case 'SMALLINT': case 'INT': case 'BIGINT': case 'DOUBLE': case 'DATE':
      return { kind: t.kind };
    // weir's sources give FLOAT as a JS number (already rounded as the server prints it).
    case 'FLOAT': return T.double;
    // PostgreSQL's unconstrained numeric: DECIMAL(38, 18), as Flink CDC's PostgreSQL source.
    case 'DECIMAL': return t.precision === undefined ? T.decimal(38, 18) : T.decimal(t.precision, t.scale);
    case 'CHAR': case 'VARCHAR': return { kind: 'STRING', precision: t.length };
    case 'STRING': return T.string;
    case 'BINARY': case 'VARBINARY': case 'BYTES': return T.bytes;
    case 'TIME': return { kind: 'TIME', precision: t.precision };
    case 'TIMESTAMP': return T.timestamp(t.precision);
    case 'TIMESTAMP_LTZ': return T.timestampLtz(t.precision);
    case 'JSON': case 'ARRAY': return { kind: 'OTHER', source: typeText };
  }
}
