import { T, type SqlType } from './sql-type.ts';

/**
 * The expression type of a source column from its type text as weir's CDC schema records give it
 * (CdcColumn.type: MySQL's COLUMN_TYPE 'decimal(10,2) unsigned', PostgreSQL's 'numeric(10,2)',
 * 'int4', 'timestamp with time zone'). Types expressions cannot compute with are OTHER: they may be
 * projected unchanged.
 */
export function sourceColumnType(typeText: string): SqlType {
  const text = typeText.trim().toLowerCase();
  const m = /^([a-z_ 0-9]+?)\s*(?:\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\))?(?:\s+(unsigned|signed|zerofill).*)?$/.exec(text);
  if (!m) return { kind: 'OTHER', source: typeText };
  const name = m[1]!.trim();
  const p = m[2] !== undefined ? Number(m[2]) : undefined;
  const s = m[3] !== undefined ? Number(m[3]) : undefined;
  const unsigned = m[4] === 'unsigned';
  switch (name) {
    case 'tinyint':
      return p === 1 ? T.boolean : { kind: unsigned ? 'SMALLINT' : 'TINYINT' };
    case 'smallint':
    case 'int2':
    case 'year':
      return { kind: unsigned ? 'INT' : 'SMALLINT' };
    case 'mediumint':
      return T.int;
    case 'int':
    case 'integer':
    case 'int4':
    case 'serial':
      return unsigned ? T.bigint : T.int;
    case 'bigint':
    case 'int8':
    case 'bigserial':
      // weir reads BIGINT as bigint; BIGINT UNSIGNED does not fit Flink's BIGINT: DECIMAL(20, 0).
      return unsigned ? T.decimal(20, 0) : T.bigint;
    case 'float':
    case 'real':
    case 'float4':
    case 'double':
    case 'double precision':
    case 'float8':
      // weir's sources give both as JS numbers (FLOAT already rounded as printed): DOUBLE.
      return T.double;
    case 'decimal':
    case 'numeric':
    case 'dec':
    case 'fixed':
      // PostgreSQL's unconstrained numeric: as Flink CDC's PostgreSQL source, DECIMAL(38, 18).
      return p === undefined ? T.decimal(name === 'numeric' ? 38 : 10, name === 'numeric' ? 18 : 0) : T.decimal(p, s ?? 0);
    case 'bool':
    case 'boolean':
      return T.boolean;
    case 'bit':
      return p === undefined || p === 1 ? T.boolean : { kind: 'OTHER', source: typeText };
    case 'char':
    case 'varchar':
    case 'character':
    case 'character varying':
    case 'bpchar':
      return p === undefined ? T.string : { kind: 'STRING', precision: p };
    case 'text':
    case 'tinytext':
    case 'mediumtext':
    case 'longtext':
    case 'name':
    case 'uuid':
    case 'enum':
    case 'set':
    case 'citext':
      return T.string;
    case 'binary':
    case 'varbinary':
    case 'blob':
    case 'tinyblob':
    case 'mediumblob':
    case 'longblob':
    case 'bytea':
      return T.bytes;
    case 'date':
      return T.date;
    case 'time':
    case 'time without time zone':
      return { kind: 'TIME', precision: p ?? 0 };
    case 'datetime':
    case 'timestamp':
    case 'timestamp without time zone':
      // MySQL's TIMESTAMP is an instant (read as '...Z'); PostgreSQL's timestamp is local.
      return T.timestamp(p ?? (name === 'datetime' ? 0 : 6));
    case 'timestamptz':
    case 'timestamp with time zone':
      return T.timestampLtz(p ?? 6);
    default:
      if (text.startsWith('enum(') || text.startsWith('set(')) return T.string;
      return { kind: 'OTHER', source: typeText };
  }
}

/**
 * MySQL names its instant type TIMESTAMP and its local one DATETIME; PostgreSQL's `timestamp` is
 * local. The dialect decides, so the caller says which one it reads.
 */
export function sourceColumnTypeOf(typeText: string, dialect: 'mysql' | 'postgres'): SqlType {
  const t = sourceColumnType(typeText);
  if (dialect === 'mysql' && /^timestamp\b/i.test(typeText.trim())) {
    const m = /\((\d+)\)/.exec(typeText);
    return T.timestampLtz(m ? Number(m[1]) : 0);
  }
  return t;
}
