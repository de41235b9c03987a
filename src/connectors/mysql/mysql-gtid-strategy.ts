import type { BinlogPosition, BinlogStart } from './binlog-position.ts';
import { binlogDumpPayload, statusPosition, type GtidStrategy, type GtidTracker } from './gtid-strategy.ts';
import { MySqlGtidSet } from './mysql-gtid-set.ts';
import { queryRecords, type QueryRunner } from './query-runner.ts';

const COM_BINLOG_DUMP_GTID = 0x1e;
const BINLOG_THROUGH_GTID = 0x04;

/**
 * MySQL: GTIDs are uuid:N and a position is the set of executed GTIDs; a GTID start is
 * COM_BINLOG_DUMP_GTID with the encoded set. Written from the protocol documentation and NOT
 * TESTED against a MySQL server (none is installed where this was written).
 */
export class MySqlGtidStrategy implements GtidStrategy {
  readonly flavor = 'mysql' as const;
  readonly version: string;

  constructor(version: string) {
    this.version = version;
  }

  async currentPosition(conn: QueryRunner): Promise<BinlogPosition> {
    // 8.2 renamed SHOW MASTER STATUS; 8.4 removed the old name.
    const [major = 0, minor = 0] = this.version.split(/[.-]/).map(Number);
    const sql = major > 8 || (major === 8 && minor >= 2) ? 'SHOW BINARY LOG STATUS' : 'SHOW MASTER STATUS';
    const [status] = await queryRecords(conn, sql);
    const { file, pos } = statusPosition(status, sql);
    const executed = status?.Executed_Gtid_Set;
    const gtid = executed === null || executed === undefined ? '' : String(executed).replace(/\s+/g, '');
    return gtid ? { file, pos, gtid } : { file, pos };
  }

  /** SHOW BINARY LOG STATUS has the GTID set in the same row: one query either way. */
  currentOffset(conn: QueryRunner): Promise<BinlogPosition> {
    return this.currentPosition(conn);
  }

  dumpSessionStatements(_start: BinlogStart, heartbeatMs: number): string[] {
    // 8.0.26 renamed master_* to source_*; the server reads whichever it knows.
    return [
      'SET @master_binlog_checksum = @@global.binlog_checksum',
      'SET @source_binlog_checksum = @@global.binlog_checksum',
      `SET @master_heartbeat_period = ${heartbeatMs * 1_000_000}`,
      `SET @source_heartbeat_period = ${heartbeatMs * 1_000_000}`,
    ];
  }

  dumpPayload(start: BinlogStart, serverId: number): Buffer {
    if (start.kind === 'file') return binlogDumpPayload(start.file, start.pos, serverId);
    const set = MySqlGtidSet.parse(start.gtid).encode();
    const out = Buffer.alloc(1 + 2 + 4 + 4 + 0 + 8 + 4 + set.length);
    let at = out.writeUInt8(COM_BINLOG_DUMP_GTID, 0);
    at = out.writeUInt16LE(BINLOG_THROUGH_GTID, at);
    at = out.writeUInt32LE(serverId, at);
    at = out.writeUInt32LE(0, at); // no file name: the server finds the file from the set
    at = out.writeBigUInt64LE(4n, at);
    at = out.writeUInt32LE(set.length, at);
    set.copy(out, at);
    return out;
  }

  /**
   * The executed set: known from a GTID start, or from the PREVIOUS_GTIDS event that opens each
   * file; after a file-offset start in the middle of a file it stays unknown until the next file.
   */
  tracker(start: BinlogStart): GtidTracker {
    let set = start.kind === 'gtid' ? MySqlGtidSet.parse(start.gtid) : undefined;
    return {
      add: (gtid) => set?.add(gtid),
      merge: (text) => {
        const other = MySqlGtidSet.parse(text);
        if (set) set.merge(other);
        else set = other;
      },
      toString: () => set?.toString() || undefined,
    };
  }
}
