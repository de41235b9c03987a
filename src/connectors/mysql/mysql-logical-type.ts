import type { LogicalType } from '../database-sink/logical-type.ts';
import { TypeNotMappedError } from '../database-sink/type-not-mapped-error.ts';

/**
 * MySQL/MariaDB column types to logical ones and back (the table in docs/pipeline-types.md), as
 * Flink CDC's MySQL connector maps them: unsigned integers widen (INT UNSIGNED is BIGINT,
 * BIGINT UNSIGNED is DECIMAL(20, 0)), TINYINT(1) and BIT(1) are BOOLEAN, DATETIME is TIMESTAMP
 * and TIMESTAMP is TIMESTAMP_LTZ, ENUM, SET and the TEXTs are STRING.
 */
export function logicalFromMySql(columnType: string): LogicalType {
  const t = columnType.trim().toLowerCase();
  const m = /^([a-z]+)\s*(?:\(([^)]*)\))?\s*(unsigned)?\s*(zerofill)?$/.exec(t);
  if (!m) throw new TypeNotMappedError('mysql', columnType);
  const name = m[1]!;
  const args = m[2] && !/^'/.test(m[2]) ? m[2].split(',').map((a) => Number(a.trim())) : [];
  const unsigned = m[3] !== undefined;
  switch (name) {
    case 'bool': case 'boolean': return { kind: 'BOOLEAN' };
    case 'tinyint': return args[0] === 1 ? { kind: 'BOOLEAN' } : { kind: unsigned ? 'SMALLINT' : 'TINYINT' };
    case 'smallint': return { kind: unsigned ? 'INT' : 'SMALLINT' };
    case 'mediumint': return { kind: 'INT' };
    case 'int': case 'integer': return { kind: unsigned ? 'BIGINT' : 'INT' };
    case 'bigint': return unsigned ? { kind: 'DECIMAL', precision: 20, scale: 0 } : { kind: 'BIGINT' };
    case 'float': return { kind: 'FLOAT' };
    case 'double': case 'real': return { kind: 'DOUBLE' };
    case 'decimal': case 'numeric': case 'dec': case 'fixed': return { kind: 'DECIMAL', precision: args[0] ?? 10, scale: args[1] ?? 0 };
    case 'year': return { kind: 'INT' };
    case 'bit': return (args[0] ?? 1) === 1 ? { kind: 'BOOLEAN' } : { kind: 'BINARY', length: Math.ceil(args[0]! / 8) };
    case 'char': return { kind: 'CHAR', length: args[0] ?? 1 };
    case 'varchar': return { kind: 'VARCHAR', length: args[0] ?? 255 };
    case 'tinytext': case 'text': case 'mediumtext': case 'longtext': case 'enum': case 'set': return { kind: 'STRING' };
    case 'binary': return { kind: 'BINARY', length: args[0] ?? 1 };
    case 'varbinary': return { kind: 'VARBINARY', length: args[0] ?? 255 };
    case 'tinyblob': case 'blob': case 'mediumblob': case 'longblob': return { kind: 'BYTES' };
    case 'json': return { kind: 'JSON' };
    case 'date': return { kind: 'DATE' };
    case 'time': return { kind: 'TIME', precision: args[0] ?? 0 };
    case 'datetime': return { kind: 'TIMESTAMP', precision: args[0] ?? 0 };
    case 'timestamp': return { kind: 'TIMESTAMP_LTZ', precision: args[0] ?? 0 };
    default: throw new TypeNotMappedError('mysql', columnType);
  }
}

/** An InnoDB index holds at most 3,072 bytes: a primary key's columns share them. */
const KEY_BYTES = 3072;
/** The most characters a utf8mb4 key column may have on its own. */
const KEY_CHARS = KEY_BYTES / 4;

/** The bytes a key column of a fixed-size type takes in the index; undefined for strings and bytes without a small bound. */
function fixedKeyBytes(t: LogicalType): number | undefined {
  switch (t.kind) {
    case 'BOOLEAN': case 'TINYINT': return 1;
    case 'SMALLINT': return 2;
    case 'INT': case 'FLOAT': case 'DATE': return 4;
    case 'BIGINT': case 'DOUBLE': case 'TIME': case 'TIMESTAMP': case 'TIMESTAMP_LTZ': return 8;
    case 'DECIMAL': return 4 * Math.ceil(Math.min(t.precision ?? 65, 65) / 9) + 4;
    case 'CHAR': return 4 * t.length;
    case 'VARCHAR': return t.length <= 128 ? 4 * t.length + 2 : undefined;
    case 'BINARY': return t.length;
    case 'VARBINARY': return t.length <= 512 ? t.length + 2 : undefined;
    default: return undefined;
  }
}

/**
 * How many characters each of a primary key's long string (or bytes: 4 per character) columns
 * may have so that the whole key fits one index entry: what the fixed-size columns leave, shared
 * out (a table key of an INT and a STRING gets VARCHAR(766); two STRINGs 383 each).
 */
export function keyCharsOf(key: readonly LogicalType[]): number {
  const flexible = key.filter((t) => fixedKeyBytes(t) === undefined).length;
  if (flexible === 0) return KEY_CHARS;
  const fixed = key.reduce((n, t) => n + (fixedKeyBytes(t) ?? 0), 0);
  return Math.max(1, Math.min(KEY_CHARS, Math.floor((KEY_BYTES - fixed - 2 * flexible) / flexible / 4)));
}

/**
 * The MySQL/MariaDB type a column of this logical type is created with. `keyChars`: the column is
 * in the primary key, where TEXT and BLOB cannot go, and a long string may have this many
 * characters (keyCharsOf). An instant (TIMESTAMP_LTZ) is a DATETIME of
 * the session's zone, which weir sets to UTC: MySQL's TIMESTAMP ends in 2038.
 */
export function mySqlTypeOf(t: LogicalType, keyChars?: number): string {
  const key = keyChars !== undefined;
  switch (t.kind) {
    case 'BOOLEAN': return 'tinyint(1)';
    case 'TINYINT': return 'tinyint';
    case 'SMALLINT': return 'smallint';
    case 'INT': return 'int';
    case 'BIGINT': return 'bigint';
    case 'FLOAT': return 'float';
    case 'DOUBLE': return 'double';
    case 'DECIMAL': return t.precision === undefined || t.precision > 65 ? `decimal(65,${Math.min(t.scale || 30, 30)})` : `decimal(${t.precision},${Math.min(t.scale, 30)})`;
    case 'CHAR': return t.length <= 255 ? `char(${t.length})` : `varchar(${t.length})`;
    case 'VARCHAR': return key ? `varchar(${Math.min(t.length, keyChars)})` : t.length <= 16_383 ? `varchar(${t.length})` : 'longtext';
    case 'STRING': return key ? `varchar(${keyChars})` : 'longtext';
    case 'BINARY': return t.length <= 255 ? `binary(${t.length})` : `varbinary(${t.length})`;
    case 'VARBINARY': return key ? `varbinary(${Math.min(t.length, 4 * keyChars)})` : t.length <= 65_532 ? `varbinary(${t.length})` : 'longblob';
    case 'BYTES': return key ? `varbinary(${4 * keyChars})` : 'longblob';
    case 'JSON': return 'json';
    case 'DATE': return 'date';
    case 'TIME': return `time(${Math.min(t.precision, 6)})`;
    case 'TIMESTAMP': case 'TIMESTAMP_LTZ': return `datetime(${Math.min(t.precision, 6)})`;
    case 'ARRAY': return 'json';
  }
}
