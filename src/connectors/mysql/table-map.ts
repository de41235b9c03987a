import { BinaryReader } from './binary-reader.ts';
import { ColumnTypeCode as T } from './column-type-code.ts';

/**
 * A column as a TABLE_MAP event describes it: the type code and the metadata needed to find the
 * value's bytes in a row image. STRING columns that are really ENUM or SET carry the real type
 * in their metadata; `type` is that real type.
 */
export interface BinlogColumn {
  readonly type: number;
  /** VARCHAR/STRING: maximum bytes; ENUM/SET: bytes of the stored index or bitmap. */
  readonly maxLength: number;
  /** BLOB/TEXT/JSON/GEOMETRY: bytes of the length prefix. FLOAT/DOUBLE: bytes of the value. */
  readonly packLength: number;
  /** NEWDECIMAL: digits; BIT: bits in the last, partial byte (0..7). */
  readonly precision: number;
  /** NEWDECIMAL: scale; TIME2/DATETIME2/TIMESTAMP2: fractional second digits; BIT: whole bytes. */
  readonly scale: number;
}

export interface TableMap {
  readonly tableId: number;
  readonly db: string;
  readonly table: string;
  readonly columns: readonly BinlogColumn[];
  /** The column types and metadata as hex: equal signatures decode alike. */
  readonly signature: string;
}

/** Parses a TABLE_MAP event body (after the common header, without the checksum). */
export function parseTableMap(r: BinaryReader, tableIdBytes: number): TableMap {
  const tableId = r.uintLE(tableIdBytes);
  r.skip(2); // flags
  const db = r.string(r.u8());
  r.skip(1);
  const table = r.string(r.u8());
  r.skip(1);
  const from = r.offset;
  const count = r.lenenc();
  const types = [...r.bytes(count)];
  const metaLength = r.lenenc();
  const meta = new BinaryReader(r.buf, r.offset, r.offset + metaLength);
  r.skip(metaLength);
  const signature = r.buf.toString('hex', from, r.offset);
  // The nullability bitmap and MySQL 8's optional metadata follow; the schema cache has both.
  return { tableId, db, table, columns: types.map((type) => readColumnMeta(type, meta)), signature };
}

function column(type: number, fields: Partial<Omit<BinlogColumn, 'type'>> = {}): BinlogColumn {
  return { type, maxLength: 0, packLength: 0, precision: 0, scale: 0, ...fields };
}

function readColumnMeta(type: number, m: BinaryReader): BinlogColumn {
  switch (type) {
    case T.FLOAT:
    case T.DOUBLE:
    case T.BLOB:
    case T.TINY_BLOB:
    case T.MEDIUM_BLOB:
    case T.LONG_BLOB:
    case T.GEOMETRY:
    case T.JSON:
      return column(type === T.TINY_BLOB || type === T.MEDIUM_BLOB || type === T.LONG_BLOB ? T.BLOB : type, { packLength: m.u8() });
    case T.TIMESTAMP2:
    case T.DATETIME2:
    case T.TIME2:
      return column(type, { scale: m.u8() });
    case T.VARCHAR:
    case T.VAR_STRING:
      return column(T.VARCHAR, { maxLength: m.u16() });
    case T.BIT: {
      const bits = m.u8();
      return column(type, { precision: bits, scale: m.u8() });
    }
    case T.NEWDECIMAL: {
      const precision = m.u8();
      return column(type, { precision, scale: m.u8() });
    }
    case T.STRING:
    case T.ENUM:
    case T.SET:
      return stringColumn(m.u8(), m.u8());
    default:
      return column(type);
  }
}

/**
 * STRING metadata is (real type, length), but lengths above 255 borrow two bits of the real type
 * byte, inverted (so that old readers see a real type of STRING).
 */
function stringColumn(b0: number, b1: number): BinlogColumn {
  if ((b0 & 0x30) !== 0x30) return column(b0 | 0x30, { maxLength: b1 | (((b0 & 0x30) ^ 0x30) << 4) });
  return column(b0, { maxLength: b1 });
}
