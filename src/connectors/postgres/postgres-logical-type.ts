import type { LogicalType } from '../database-sink/logical-type.ts';
import { TypeNotMappedError } from '../database-sink/type-not-mapped-error.ts';

/**
 * PostgreSQL's types to logical ones and back (the table in docs/pipeline-types.md). Read from
 * the catalog's type name with its modifier text, as the CDC source's schemas carry it
 * ('int4', 'varchar(20)', 'numeric(10,2)', 'timestamptz(3)', '_int4' for int4[]).
 */
export function logicalFromPostgres(typeText: string): LogicalType {
  // format_type() puts a time's precision inside its name: 'timestamp(3) with time zone'.
  const t = typeText.trim().toLowerCase().replace(/^(time|timestamp)\((\d+)\)(.*)$/, '$1$3($2)');
  if (t.startsWith('_')) return { kind: 'ARRAY', element: logicalFromPostgres(t.slice(1)) };
  if (t.endsWith('[]')) return { kind: 'ARRAY', element: logicalFromPostgres(t.slice(0, -2)) };
  const m = /^([a-z0-9_ ]+?)\s*(?:\(([\d\s,]+)\))?$/.exec(t);
  if (!m) throw new TypeNotMappedError('postgres', typeText);
  const name = m[1]!;
  const args = m[2]?.split(',').map((a) => Number(a.trim())) ?? [];
  const fsp = args[0] ?? 6;
  switch (name) {
    case 'bool': case 'boolean': return { kind: 'BOOLEAN' };
    case 'int2': case 'smallint': return { kind: 'SMALLINT' };
    case 'int4': case 'integer': case 'int': return { kind: 'INT' };
    case 'int8': case 'bigint': return { kind: 'BIGINT' };
    case 'float4': case 'real': return { kind: 'FLOAT' };
    case 'float8': case 'double precision': return { kind: 'DOUBLE' };
    case 'numeric': case 'decimal': return args.length > 0 ? { kind: 'DECIMAL', precision: args[0]!, scale: args[1] ?? 0 } : { kind: 'DECIMAL', scale: 0 };
    case 'bpchar': case 'char': case 'character': return { kind: 'CHAR', length: args[0] ?? 1 };
    case 'varchar': case 'character varying': return args.length > 0 ? { kind: 'VARCHAR', length: args[0]! } : { kind: 'STRING' };
    case 'text': case 'name': case 'citext': return { kind: 'STRING' };
    case 'bytea': return { kind: 'BYTES' };
    case 'json': case 'jsonb': return { kind: 'JSON' };
    case 'uuid': return { kind: 'CHAR', length: 36 };
    case 'date': return { kind: 'DATE' };
    case 'time': case 'time without time zone': return { kind: 'TIME', precision: fsp };
    case 'timestamp': case 'timestamp without time zone': return { kind: 'TIMESTAMP', precision: fsp };
    case 'timestamptz': case 'timestamp with time zone': return { kind: 'TIMESTAMP_LTZ', precision: fsp };
    default: throw new TypeNotMappedError('postgres', typeText);
  }
}

/** The PostgreSQL type a column of this logical type is created with. */
export function postgresTypeOf(t: LogicalType): string {
  switch (t.kind) {
    case 'BOOLEAN': return 'boolean';
    case 'TINYINT': case 'SMALLINT': return 'smallint';
    case 'INT': return 'integer';
    case 'BIGINT': return 'bigint';
    case 'FLOAT': return 'real';
    case 'DOUBLE': return 'double precision';
    case 'DECIMAL': return t.precision === undefined ? 'numeric' : `numeric(${t.precision},${t.scale})`;
    case 'CHAR': return `char(${t.length})`;
    case 'VARCHAR': return `varchar(${t.length})`;
    case 'STRING': return 'text';
    case 'BINARY': case 'VARBINARY': case 'BYTES': return 'bytea';
    case 'JSON': return 'jsonb';
    case 'DATE': return 'date';
    case 'TIME': return `time(${Math.min(t.precision, 6)})`;
    case 'TIMESTAMP': return `timestamp(${Math.min(t.precision, 6)})`;
    case 'TIMESTAMP_LTZ': return `timestamptz(${Math.min(t.precision, 6)})`;
    case 'ARRAY': return `${postgresTypeOf(t.element)}[]`;
  }
}
