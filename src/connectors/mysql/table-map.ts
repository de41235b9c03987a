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
  /** What a server with binlog_row_metadata=FULL adds: names, signedness, charsets, ENUM/SET members. */
  readonly optional?: OptionalMetadata;
}

/**
 * TABLE_MAP optional metadata (MySQL 8, MariaDB 10.5+). Per-kind lists follow the columns of that
 * kind in order: signedness the numeric columns, charsets the character columns, members the ENUM
 * and SET columns.
 */
export interface OptionalMetadata {
  /** Per numeric column (see isNumericColumn), true when unsigned. */
  readonly signedness?: readonly boolean[];
  /** A collation id per character column. */
  readonly charsets?: readonly number[];
  readonly names?: readonly string[];
  readonly setMembers?: readonly (readonly string[])[];
  readonly enumMembers?: readonly (readonly string[])[];
}

const NUMERIC = new Set<number>([T.TINY, T.SHORT, T.INT24, T.LONG, T.LONGLONG, T.NEWDECIMAL, T.FLOAT, T.DOUBLE, T.DECIMAL]);
const CHARACTER = new Set<number>([T.STRING, T.VARCHAR, T.BLOB]);

/** Which flavor wrote the event: MariaDB counts YEAR among the numeric columns of SIGNEDNESS, MySQL does not. */
export type Flavor = 'mariadb' | 'mysql';

export function isNumericColumn(c: BinlogColumn, flavor: Flavor): boolean {
  return NUMERIC.has(c.type) || (flavor === 'mariadb' && c.type === T.YEAR);
}

export function isCharacterColumn(c: BinlogColumn): boolean {
  return CHARACTER.has(c.type);
}

/** Parses a TABLE_MAP event body (after the common header, without the checksum). */
export function parseTableMap(r: BinaryReader, tableIdBytes: number, flavor: Flavor): TableMap {
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
  const columns = types.map((type) => readColumnMeta(type, meta));
  r.skip(Math.ceil(count / 8)); // nullability
  const optional = r.remaining() > 0 ? readOptionalMetadata(r, columns, flavor) : undefined;
  return { tableId, db, table, columns, signature, ...(optional ? { optional } : {}) };
}

const SIGNEDNESS = 1;
const DEFAULT_CHARSET = 2;
const COLUMN_CHARSET = 3;
const COLUMN_NAME = 4;
const SET_STR_VALUE = 5;
const ENUM_STR_VALUE = 6;

function readOptionalMetadata(r: BinaryReader, columns: readonly BinlogColumn[], flavor: Flavor): OptionalMetadata {
  const out: { -readonly [K in keyof OptionalMetadata]: OptionalMetadata[K] } = {};
  const characters = columns.filter(isCharacterColumn).length;
  while (r.remaining() > 0) {
    const kind = r.u8();
    const length = r.lenenc();
    const f = new BinaryReader(r.buf, r.offset, r.offset + length);
    r.skip(length);
    switch (kind) {
      case SIGNEDNESS: {
        const bits = f.bytes(length);
        const n = columns.filter((c) => isNumericColumn(c, flavor)).length;
        // Most significant bit first: the first numeric column is bit 7 of the first byte.
        out.signedness = Array.from({ length: n }, (_, i) => (bits[i >> 3]! & (0x80 >> (i & 7))) !== 0);
        break;
      }
      case DEFAULT_CHARSET: {
        const fallback = f.lenenc();
        const charsets = new Array<number>(characters).fill(fallback);
        while (f.remaining() > 0) {
          const index = f.lenenc();
          charsets[index] = f.lenenc();
        }
        out.charsets = charsets;
        break;
      }
      case COLUMN_CHARSET: {
        const charsets: number[] = [];
        while (f.remaining() > 0) charsets.push(f.lenenc());
        out.charsets = charsets;
        break;
      }
      case COLUMN_NAME: {
        const names: string[] = [];
        while (f.remaining() > 0) names.push(f.string(f.lenenc()));
        out.names = names;
        break;
      }
      case SET_STR_VALUE:
      case ENUM_STR_VALUE: {
        const all: string[][] = [];
        while (f.remaining() > 0) {
          const members: string[] = [];
          for (let n = f.lenenc(); n > 0; n--) members.push(f.string(f.lenenc()));
          all.push(members);
        }
        if (kind === SET_STR_VALUE) out.setMembers = all;
        else out.enumMembers = all;
        break;
      }
      default:
        break; // geometry types, primary key, ENUM/SET charsets, visibility: not needed to decode
    }
  }
  return out;
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
