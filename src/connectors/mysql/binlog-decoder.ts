import * as zlib from 'node:zlib';
import { BinaryReader } from './binary-reader.ts';
import type { TrackedColumns } from './tracked-columns.ts';
import { BinlogDecodeError, BinlogError, BinlogSchemaError, type BinlogErrorSite } from './binlog-error.ts';
import type { BinlogEvent, Row } from './binlog-event.ts';
import { BinlogEventType as E, FL_STANDALONE, LOG_EVENT_ARTIFICIAL_F, STMT_END_F } from './binlog-event-type.ts';
import type { BinlogPosition, BinlogStart } from './binlog-position.ts';
import { tableSchemaFromTableMap } from './binlog-table-schema.ts';
import { binlogTypeFits, binlogValueDecoder, type BinlogValueDecoder } from './column-codec.ts';
import { columnTypeName } from './column-type-code.ts';
import type { GtidTracker } from './gtid-strategy.ts';
import { MySqlGtidSet } from './mysql-gtid-set.ts';
import { parseTableMap, type Flavor, type TableMap } from './table-map.ts';
import type { TableSchema, TableSchemaCache } from './table-schema.ts';

/** What one raw event amounts to for the reader. */
export type DecodeOutcome =
  | { readonly kind: 'event'; readonly event: BinlogEvent; readonly position: BinlogPosition }
  /** Nothing to hand out, but the position moved between transactions. */
  | { readonly kind: 'advance'; readonly position: BinlogPosition }
  | { readonly kind: 'none' }
  /** The table's schema must be (re)loaded; then decode the same event again. */
  | { readonly kind: 'schema'; readonly db: string; readonly table: string; readonly refresh: boolean };

export interface BinlogDecoderOptions {
  readonly host: string;
  readonly port: number;
  readonly start: BinlogStart;
  readonly tracker: GtidTracker;
  readonly schemas: TableSchemaCache;
  readonly tracked?: TrackedColumns;
  readonly include?: ((db: string, table: string) => boolean) | undefined;
  /** Whether events carry a CRC32 trailer before the FORMAT_DESCRIPTION says so (@@binlog_checksum). */
  readonly checksum: boolean;
  /** The server's flavor: the optional TABLE_MAP metadata differs a little between them. */
  readonly flavor: Flavor;
}

interface MappedTable {
  readonly map: TableMap;
  readonly schema: TableSchema;
  readonly names: readonly string[];
  readonly decoders: readonly BinlogValueDecoder[];
}

interface Header {
  readonly timestamp: number;
  readonly type: number;
  readonly serverId: number;
  readonly size: number;
  readonly logPos: number;
  readonly flags: number;
}

const HEADER_LENGTH = 19;
const EXCLUDED = 'excluded' as const;
// Node 20.15 added zlib.crc32; without it events are taken unverified.
const crc32 = (zlib as { crc32?: (data: Uint8Array) => number }).crc32;

/**
 * Turns raw binlog events (as the dump sends them, without the leading OK byte) into row changes,
 * commits, DDL and rotations, keeping the reader's place: file, offset, open transaction, table
 * maps and GTID state. Synchronous; when a table's schema is not cached it asks for it (outcome
 * 'schema') without changing any state, and the caller decodes the same event again.
 */
export class BinlogDecoder {
  readonly #o: BinlogDecoderOptions;
  #file: string;
  #pos: number;
  #checksum: boolean;
  #postHeader: number[] = [];
  readonly #tables = new Map<number, MappedTable | typeof EXCLUDED>();
  readonly #decoderCache = new Map<string, MappedTable>();
  readonly #refreshed = new Set<string>();
  /**
   * The open event group: where it began, its GTID, and whether one statement ends it (MariaDB's
   * standalone GTID, MySQL's GTID not followed by BEGIN: DDL) rather than XID/COMMIT.
   */
  #txn: { start: number; gtid: string | undefined; single: boolean } | undefined;

  constructor(o: BinlogDecoderOptions) {
    this.#o = o;
    this.#file = o.start.kind === 'file' ? o.start.file : '';
    this.#pos = o.start.kind === 'file' ? o.start.pos : 0;
    this.#checksum = o.checksum;
  }

  get site(): BinlogErrorSite {
    return { host: this.#o.host, port: this.#o.port, file: this.#file || undefined, pos: this.#pos };
  }

  get position(): BinlogPosition {
    const gtid = this.#o.tracker.toString();
    return gtid === undefined ? { file: this.#file, pos: this.#pos } : { file: this.#file, pos: this.#pos, gtid };
  }

  decode(raw: Buffer): DecodeOutcome {
    let header: Header | undefined;
    try {
      header = readHeader(raw);
      const body = this.#body(raw, header);
      return this.#dispatch(header, body);
    } catch (e) {
      if (e instanceof BinlogError) throw e;
      throw new BinlogDecodeError(this.site, header?.type ?? -1, (e as Error).message, { cause: e });
    }
  }

  /** The event body: after the header, before the CRC32 trailer (verified when present). */
  #body(raw: Buffer, h: Header): BinaryReader {
    if (h.size !== raw.length) throw new Error(`event size ${h.size} in the header, ${raw.length} bytes received`);
    // A checksum-aware server's FORMAT_DESCRIPTION always ends in the algorithm byte and a
    // 4-byte checksum field (verifiable only when the algorithm is CRC32); it rules what follows.
    const fde = h.type === E.FORMAT_DESCRIPTION;
    const checksum = fde ? raw[raw.length - 5] === 1 : this.#checksum;
    const end = fde || checksum ? raw.length - 4 : raw.length;
    if (checksum && crc32 && crc32(raw.subarray(0, end)) !== raw.readUInt32LE(end)) throw new Error('CRC32 checksum mismatch');
    return new BinaryReader(raw, HEADER_LENGTH, end);
  }

  #dispatch(h: Header, r: BinaryReader): DecodeOutcome {
    switch (h.type) {
      case E.ROTATE:
        return this.#rotate(r);
      case E.FORMAT_DESCRIPTION:
        return this.#formatDescription(h, r);
      case E.QUERY:
        return this.#query(h, r);
      case E.XID:
        return this.#commit(h);
      case E.TABLE_MAP:
        return this.#tableMap(h, r);
      case E.WRITE_ROWS_V1:
      case E.WRITE_ROWS_V2:
        return this.#rows(h, r, 'c');
      case E.UPDATE_ROWS_V1:
      case E.UPDATE_ROWS_V2:
        return this.#rows(h, r, 'u');
      case E.DELETE_ROWS_V1:
      case E.DELETE_ROWS_V2:
        return this.#rows(h, r, 'd');
      case E.MARIADB_GTID:
        return this.#mariaDbGtid(h, r);
      case E.MYSQL_GTID:
      case E.MYSQL_ANONYMOUS_GTID:
        return this.#mySqlGtid(h, r);
      case E.MARIADB_GTID_LIST:
        return this.#gtidList(h, r);
      case E.MYSQL_PREVIOUS_GTIDS:
        return this.#previousGtids(h, r);
      case E.INCIDENT:
        throw new BinlogDecodeError(this.site, h.type, 'the server logged an INCIDENT: changes may be missing from the binlog here');
      case E.MYSQL_TRANSACTION_PAYLOAD:
        throw new BinlogDecodeError(this.site, h.type, 'compressed transaction payloads are not supported: SET GLOBAL binlog_transaction_compression = OFF');
      case E.MYSQL_PARTIAL_UPDATE_ROWS:
        throw new BinlogDecodeError(this.site, h.type, "partial JSON updates are not supported: SET GLOBAL binlog_row_value_options = ''");
      default:
        if (h.type >= E.MARIADB_QUERY_COMPRESSED && h.type <= E.MARIADB_DELETE_ROWS_COMPRESSED_V1) {
          throw new BinlogDecodeError(this.site, h.type, 'compressed events are not supported: SET GLOBAL log_bin_compress = OFF');
        }
        // Heartbeats, STOP, ANNOTATE_ROWS, ROWS_QUERY, BINLOG_CHECKPOINT, statement context events...
        return this.#skipped(h);
    }
  }

  /** A skipped event moves the position; between transactions the caller may record that. */
  #skipped(h: Header): DecodeOutcome {
    if (!this.#advance(h)) return { kind: 'none' };
    return this.#txn ? { kind: 'none' } : { kind: 'advance', position: this.position };
  }

  /** Moves past a real event; artificial ones (and heartbeats, which carry no offset of their own) do not. */
  #advance(h: Header): boolean {
    if (h.logPos === 0 || (h.flags & LOG_EVENT_ARTIFICIAL_F) !== 0 || h.type === E.HEARTBEAT || h.type === E.HEARTBEAT_V2) return false;
    this.#pos = h.logPos;
    return true;
  }

  #start(h: Header): number {
    return h.logPos - h.size;
  }

  #rotate(r: BinaryReader): DecodeOutcome {
    const pos = r.u64Number();
    const file = r.string(r.remaining());
    // The dump begins with a made-up ROTATE naming where it starts; news only if it is not where we are.
    if (file === this.#file && pos === this.#pos) return { kind: 'none' };
    this.#file = file;
    this.#pos = pos;
    return { kind: 'event', event: { type: 'rotate', file, pos }, position: this.position };
  }

  #formatDescription(h: Header, r: BinaryReader): DecodeOutcome {
    r.skip(2 + 50 + 4); // binlog version, server version, create timestamp
    const headerLength = r.u8();
    if (headerLength !== HEADER_LENGTH) throw new Error(`event header length ${headerLength}, only ${HEADER_LENGTH} is supported`);
    // What remains: one post-header length per event type, then the checksum algorithm byte.
    const lengths = [...r.rest()];
    this.#checksum = lengths.pop() === 1;
    this.#postHeader = lengths;
    return this.#skipped(h);
  }

  #postHeaderLength(type: number, fallback: number): number {
    return this.#postHeader[type - 1] ?? fallback;
  }

  #query(h: Header, r: BinaryReader): DecodeOutcome {
    r.skip(4 + 4); // thread id, execution time
    const dbLength = r.u8();
    r.skip(2); // error code
    const statusLength = r.u16();
    r.skip(this.#postHeaderLength(E.QUERY, 13) - 13);
    r.skip(statusLength);
    const db = r.string(dbLength);
    r.skip(1);
    const query = r.string(r.remaining());
    const verb = query.trimStart().slice(0, 16).toUpperCase();
    if (verb === 'BEGIN' || verb.startsWith('BEGIN ')) {
      if (this.#txn) this.#txn.single = false;
      else this.#txn = { start: this.#start(h), gtid: undefined, single: false };
      this.#advance(h);
      return { kind: 'none' };
    }
    if (verb === 'COMMIT' || verb === 'ROLLBACK' || verb.startsWith('XA COMMIT')) return this.#commit(h);
    if (verb.startsWith('SAVEPOINT') || verb.startsWith('ROLLBACK TO') || verb.startsWith('XA ')) return this.#skipped(h);
    if (/^\s*(INSERT|UPDATE|DELETE|REPLACE|LOAD\s+DATA)\b/i.test(query)) {
      throw new BinlogDecodeError(this.site, h.type, `a row change was logged as a statement (a session with binlog_format STATEMENT or MIXED): ${query.slice(0, 200)}`);
    }
    // DDL: it commits on its own and may change any table, so every cached schema is suspect.
    this.#o.schemas.invalidate();
    this.#decoderCache.clear();
    this.#advance(h);
    const txn = this.#txn;
    if (txn?.single) {
      if (txn.gtid !== undefined) this.#o.tracker.add(txn.gtid);
      this.#txn = undefined;
    }
    return { kind: 'event', event: { type: 'ddl', db, query, file: this.#file, pos: this.#start(h), nextPos: h.logPos, ts: h.timestamp * 1000 }, position: this.position };
  }

  #commit(h: Header): DecodeOutcome {
    this.#advance(h);
    const gtid = this.#txn?.gtid;
    if (gtid !== undefined) this.#o.tracker.add(gtid);
    this.#txn = undefined;
    const event: BinlogEvent = { type: 'commit', file: this.#file, nextPos: h.logPos, ...(gtid !== undefined ? { gtid } : {}), ts: h.timestamp * 1000 };
    return { kind: 'event', event, position: this.position };
  }

  #mariaDbGtid(h: Header, r: BinaryReader): DecodeOutcome {
    const seq = r.u64();
    const domain = r.u32();
    const flags = r.u8();
    this.#txn = { start: this.#start(h), gtid: `${domain}-${h.serverId}-${seq}`, single: (flags & FL_STANDALONE) !== 0 };
    this.#advance(h);
    return { kind: 'none' };
  }

  #mySqlGtid(h: Header, r: BinaryReader): DecodeOutcome {
    r.skip(1); // flags
    const sid = r.bytes(16).toString('hex');
    const gno = r.u64();
    const uuid = `${sid.slice(0, 8)}-${sid.slice(8, 12)}-${sid.slice(12, 16)}-${sid.slice(16, 20)}-${sid.slice(20)}`;
    const gtid = h.type === E.MYSQL_GTID ? `${uuid}:${gno}` : undefined;
    this.#txn = { start: this.#start(h), gtid, single: true };
    this.#advance(h);
    return { kind: 'none' };
  }

  /** MariaDB's GTID state at the start of a file (or, made up, at the start of a GTID dump). */
  #gtidList(h: Header, r: BinaryReader): DecodeOutcome {
    const count = r.u32() & 0x0fffffff;
    const entries: string[] = [];
    for (let i = 0; i < count; i++) {
      const domain = r.u32();
      const server = r.u32();
      entries.push(`${domain}-${server}-${r.u64()}`);
    }
    if (entries.length > 0) this.#o.tracker.merge(entries.join(','));
    return this.#skipped(h);
  }

  /** MySQL's executed GTID set at the start of a file. */
  #previousGtids(h: Header, r: BinaryReader): DecodeOutcome {
    try {
      this.#o.tracker.merge(MySqlGtidSet.decode(r.rest()).toString());
    } catch {
      // Tagged GTID sets (MySQL 8.3+) use another format; the state then stays as it was.
    }
    return this.#skipped(h);
  }

  #tableMap(h: Header, r: BinaryReader): DecodeOutcome {
    const map = parseTableMap(r, this.#postHeaderLength(E.TABLE_MAP, 8) === 6 ? 4 : 6, this.#o.flavor);
    if (this.#o.include && !this.#o.include(map.db, map.table)) {
      this.#tables.set(map.tableId, EXCLUDED);
      return this.#skipped(h);
    }
    const schema = this.#o.schemas.peek(map.db, map.table);
    if (!schema) return { kind: 'schema', db: map.db, table: map.table, refresh: false };
    const key = `${map.db}.${map.table}`;
    const problem = mismatch(schema, map);
    if (problem !== undefined) {
      // The cached schema may predate an ALTER; one reload, and if it still does not fit, stop.
      if (!this.#refreshed.has(key)) {
        this.#refreshed.add(key);
        return { kind: 'schema', db: map.db, table: map.table, refresh: true };
      }
      // Written before an ALTER TABLE that added columns: the columns the checkpoint's position had.
      const tracked = trackedSchema(schema, this.#o.tracked?.namesOf(map.db, map.table));
      if (tracked && mismatch(tracked, map) === undefined) {
        this.#tables.set(map.tableId, this.#mapped(map, tracked));
        return this.#skipped(h);
      }
      // Written before an ALTER TABLE: the event's own metadata, where the server writes it, still fits.
      const own = tableSchemaFromTableMap(map, this.#o.flavor, (id) => this.#o.schemas.collationCharset(id));
      if (own && mismatch(own, map) === undefined) {
        this.#tables.set(map.tableId, this.#mapped(map, own));
        return this.#skipped(h);
      }
      const hint = map.optional?.names ? '' : '; with binlog_row_metadata=FULL on the server (MariaDB 10.5+, MySQL 8) the binlog describes its own columns and such events stay readable';
      throw new BinlogSchemaError(this.site, map.db, map.table, `${problem}; the binlog was written for another version of the table (an ALTER TABLE between this event and now?)${hint}`);
    }
    this.#refreshed.delete(key);
    this.#tables.set(map.tableId, this.#mapped(map, schema));
    return this.#skipped(h);
  }

  /** Decoders are built once per table shape, not for each statement's TABLE_MAP. */
  #mapped(map: TableMap, schema: TableSchema): MappedTable {
    const key = `${map.db}\u0000${map.table}\u0000${map.signature}`;
    const cached = this.#decoderCache.get(key);
    if (cached && cached.schema === schema) return { ...cached, map };
    const mapped: MappedTable = {
      map,
      schema,
      names: schema.columns.map((c) => c.name),
      decoders: map.columns.map((c, i) => binlogValueDecoder(schema.columns[i]!, c)),
    };
    this.#decoderCache.set(key, mapped);
    return mapped;
  }

  #rows(h: Header, r: BinaryReader, op: 'c' | 'u' | 'd'): DecodeOutcome {
    const v2 = h.type >= E.WRITE_ROWS_V2;
    const tableId = r.uintLE(this.#postHeaderLength(h.type, v2 ? 10 : 8) === 6 ? 4 : 6);
    const flags = r.u16();
    if (v2) r.skip(r.u16() - 2); // extra data, its length counting itself
    const table = this.#tables.get(tableId);
    if (flags & STMT_END_F) this.#tables.delete(tableId);
    if (table === undefined) {
      throw new BinlogDecodeError(this.site, h.type, `rows event for table id ${tableId} without its TABLE_MAP (did the start position fall inside a transaction?)`);
    }
    const start = this.#start(h);
    this.#txn ??= { start, gtid: undefined, single: false };
    this.#advance(h);
    if (table === EXCLUDED) return { kind: 'none' };
    const width = r.lenenc();
    if (width !== table.map.columns.length) {
      throw new BinlogDecodeError(this.site, h.type, `rows event for ${table.map.db}.${table.map.table} has ${width} columns, its TABLE_MAP ${table.map.columns.length}`);
    }
    const present = r.bytes((width + 7) >> 3);
    const presentAfter = op === 'u' ? r.bytes((width + 7) >> 3) : present;
    if (!complete(present, width) || !complete(presentAfter, width)) {
      // The global setting was checked at open; a session can still log partial images.
      throw new BinlogDecodeError(this.site, h.type, `partial row image for ${table.map.db}.${table.map.table}: a session wrote it with binlog_row_image MINIMAL or NOBLOB (FULL is required)`);
    }
    const rows: Array<{ before: Row | null; after: Row | null }> = [];
    while (r.remaining() > 0) {
      const first = readImage(r, width, present, table);
      if (op === 'u') rows.push({ before: first, after: readImage(r, width, presentAfter, table) });
      else rows.push(op === 'c' ? { before: null, after: first } : { before: first, after: null });
    }
    const txn = this.#txn;
    const event: BinlogEvent = {
      type: 'rows',
      op,
      db: table.map.db,
      table: table.map.table,
      rows,
      file: this.#file,
      pos: start,
      nextPos: h.logPos,
      txnStart: txn.start,
      ...(txn.gtid !== undefined ? { gtid: txn.gtid } : {}),
      ts: h.timestamp * 1000,
    };
    return { kind: 'event', event, position: this.position };
  }
}

function readHeader(raw: Buffer): Header {
  if (raw.length < HEADER_LENGTH) throw new Error(`event of ${raw.length} bytes is shorter than its header`);
  return {
    timestamp: raw.readUInt32LE(0),
    type: raw[4]!,
    serverId: raw.readUInt32LE(5),
    size: raw.readUInt32LE(9),
    logPos: raw.readUInt32LE(13),
    flags: raw.readUInt16LE(17),
  };
}

/** information_schema's columns of the tracked names, in their order; undefined when one is gone (dropped, renamed since). */
function trackedSchema(schema: TableSchema, names: readonly string[] | undefined): TableSchema | undefined {
  if (names === undefined || names.length === 0) return undefined;
  const columns = names.map((n) => schema.columns.find((c) => c.name === n));
  if (columns.some((c) => c === undefined)) return undefined;
  return { ...schema, columns: columns as TableSchema['columns'] };
}

/** Why the TABLE_MAP's columns cannot be the schema's, or undefined when they fit. */
function mismatch(schema: TableSchema, map: TableMap): string | undefined {
  if (schema.columns.length !== map.columns.length) {
    return `the binlog has ${map.columns.length} columns, information_schema ${schema.columns.length}`;
  }
  for (let i = 0; i < map.columns.length; i++) {
    const column = schema.columns[i]!;
    const b = map.columns[i]!;
    if (!binlogTypeFits(column, b)) return `column ${i + 1} (${column.name}) is ${column.columnType} in information_schema but ${columnTypeName(b.type)} in the binlog`;
    // A renamed column keeps its type: only the names the binlog carries (binlog_row_metadata=FULL) tell.
    const name = map.optional?.names?.[i];
    if (name !== undefined && name !== column.name) return `column ${i + 1} is ${column.name} in information_schema but ${name} in the binlog`;
  }
  return undefined;
}

function complete(bitmap: Buffer, width: number): boolean {
  for (let i = 0; i < width; i++) if (!bit(bitmap, i)) return false;
  return true;
}

function bit(bitmap: Buffer, i: number): boolean {
  return (bitmap[i >> 3]! & (1 << (i & 7))) !== 0;
}

/** One row image: a null bitmap over the present columns, then their non-null values. */
function readImage(r: BinaryReader, width: number, present: Buffer, table: MappedTable): Row {
  let count = 0;
  for (let i = 0; i < width; i++) if (bit(present, i)) count++;
  const nulls = r.bytes((count + 7) >> 3);
  const row: Row = {};
  let k = 0;
  for (let i = 0; i < width; i++) {
    if (!bit(present, i)) continue;
    row[table.names[i]!] = bit(nulls, k++) ? null : table.decoders[i]!(r);
  }
  return row;
}
