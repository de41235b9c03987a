import { ColumnTypeCode as T } from './column-type-code.ts';
import { isCharacterColumn, isNumericColumn, type BinlogColumn, type Flavor, type TableMap } from './table-map.ts';
import type { ColumnSchema, TableSchema } from './table-schema.ts';

/**
 * A table's schema as its TABLE_MAP event describes it, when the server writes the optional
 * metadata (binlog_row_metadata=FULL): names, signedness, charsets and ENUM/SET members come with
 * every event, so events written before an ALTER TABLE still decode after it. What the event does
 * not say: FLOAT(M,D)/DOUBLE(M,D)'s D (such values are not rounded to D decimals here) and
 * nullability. Undefined when the event has no column names or a charset is unknown.
 */
export function tableSchemaFromTableMap(map: TableMap, flavor: Flavor, charsetOf: (collationId: number) => string | undefined): TableSchema | undefined {
  const o = map.optional;
  if (!o?.names || o.names.length !== map.columns.length) return undefined;
  let numeric = 0;
  let character = 0;
  let enums = 0;
  let sets = 0;
  const columns: ColumnSchema[] = [];
  for (let i = 0; i < map.columns.length; i++) {
    const b = map.columns[i]!;
    const unsigned = isNumericColumn(b, flavor) ? (o.signedness?.[numeric++] ?? false) : false;
    let charset: string | null = null;
    if (isCharacterColumn(b)) {
      const collation = o.charsets?.[character++];
      const name = collation === undefined ? undefined : collation === 63 ? 'binary' : charsetOf(collation);
      if (name === undefined) return undefined;
      charset = name;
    }
    const members = b.type === T.ENUM ? (o.enumMembers?.[enums++] ?? []) : b.type === T.SET ? (o.setMembers?.[sets++] ?? []) : [];
    const dataType = dataTypeOf(b, charset === 'binary');
    columns.push({
      name: o.names[i]!,
      dataType,
      columnType: unsigned ? `${dataType} unsigned` : dataType,
      unsigned,
      nullable: true,
      charset: charset === 'binary' ? null : charset,
      collation: null,
      octetLength: b.type === T.STRING ? b.maxLength : null,
      precision: null,
      scale: null,
      fsp: null,
      members,
    });
  }
  return { db: map.db, table: map.table, columns, primaryKey: [] };
}

const BY_TYPE = new Map<number, string>([
  [T.TINY, 'tinyint'],
  [T.SHORT, 'smallint'],
  [T.INT24, 'mediumint'],
  [T.LONG, 'int'],
  [T.LONGLONG, 'bigint'],
  [T.FLOAT, 'float'],
  [T.DOUBLE, 'double'],
  [T.NEWDECIMAL, 'decimal'],
  [T.YEAR, 'year'],
  [T.DATE, 'date'],
  [T.NEWDATE, 'date'],
  [T.DATETIME, 'datetime'],
  [T.DATETIME2, 'datetime'],
  [T.TIMESTAMP, 'timestamp'],
  [T.TIMESTAMP2, 'timestamp'],
  [T.TIME, 'time'],
  [T.TIME2, 'time'],
  [T.BIT, 'bit'],
  [T.ENUM, 'enum'],
  [T.SET, 'set'],
  [T.JSON, 'json'],
  [T.GEOMETRY, 'geometry'],
]);

function dataTypeOf(b: BinlogColumn, binary: boolean): string {
  if (b.type === T.STRING) return binary ? 'binary' : 'char';
  if (b.type === T.VARCHAR) return binary ? 'varbinary' : 'varchar';
  if (b.type === T.BLOB) return binary ? 'blob' : 'text';
  return BY_TYPE.get(b.type) ?? `binlog type ${b.type}`;
}
