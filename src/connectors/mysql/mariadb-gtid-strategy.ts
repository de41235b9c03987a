import type { BinlogPosition, BinlogStart } from './binlog-position.ts';
import { binlogDumpPayload, sqlString, statusPosition, type GtidStrategy, type GtidTracker } from './gtid-strategy.ts';
import { MariaDbGtidState } from './mariadb-gtid-state.ts';
import { queryRecords, type QueryRunner } from './query-runner.ts';

// MARIA_SLAVE_CAPABILITY_GTID: without it the server rewrites GTID events into BEGIN queries.
const SLAVE_CAPABILITY_GTID = 4;

/** MariaDB: GTIDs are domain-server-sequence; a GTID start is a session variable plus COM_BINLOG_DUMP. */
export class MariaDbGtidStrategy implements GtidStrategy {
  readonly flavor = 'mariadb' as const;
  readonly version: string;

  constructor(version: string) {
    this.version = version;
  }

  /** File and offset from SHOW MASTER STATUS, and the GTID state at exactly that offset. */
  async currentPosition(conn: QueryRunner): Promise<BinlogPosition> {
    // The GTID state read before and after the offset: equal means no commit came in between, so
    // they belong together. BINLOG_GTID_POS(file, pos) would be exact too, but it scans the binlog
    // file from its start (tens of ms per 100 MB), and chunk reads ask twice per chunk.
    for (let attempt = 0; attempt < 5; attempt++) {
      const before = await this.#gtidState(conn);
      const [status] = await queryRecords(conn, 'SHOW MASTER STATUS');
      const { file, pos } = statusPosition(status, 'SHOW MASTER STATUS');
      if ((await this.#gtidState(conn)) === before) return before ? { file, pos, gtid: before } : { file, pos };
    }
    const [status] = await queryRecords(conn, 'SHOW MASTER STATUS');
    const { file, pos } = statusPosition(status, 'SHOW MASTER STATUS');
    const [row] = await queryRecords(conn, 'SELECT BINLOG_GTID_POS(?, ?) AS gtid', [file, pos]);
    const gtid = row?.gtid === null || row?.gtid === undefined ? '' : String(row.gtid);
    return gtid ? { file, pos, gtid } : { file, pos };
  }

  async currentOffset(conn: QueryRunner): Promise<BinlogPosition> {
    const [status] = await queryRecords(conn, 'SHOW MASTER STATUS');
    return statusPosition(status, 'SHOW MASTER STATUS');
  }

  async #gtidState(conn: QueryRunner): Promise<string> {
    const [row] = await queryRecords(conn, 'SELECT @@global.gtid_binlog_pos AS gtid');
    return row?.gtid === null || row?.gtid === undefined ? '' : String(row.gtid);
  }

  dumpSessionStatements(start: BinlogStart, heartbeatMs: number): string[] {
    const statements = [
      `SET @mariadb_slave_capability = ${SLAVE_CAPABILITY_GTID}`,
      'SET @master_binlog_checksum = @@global.binlog_checksum',
      `SET @master_heartbeat_period = ${heartbeatMs * 1_000_000}`,
    ];
    if (start.kind === 'gtid') {
      statements.push(`SET @slave_connect_state = ${sqlString(start.gtid)}`, 'SET @slave_gtid_strict_mode = 0', 'SET @slave_gtid_ignore_duplicates = 0');
    }
    return statements;
  }

  dumpPayload(start: BinlogStart, serverId: number): Buffer {
    // With @slave_connect_state set the server finds the file itself and ignores these.
    return start.kind === 'file' ? binlogDumpPayload(start.file, start.pos, serverId) : binlogDumpPayload('', 4, serverId);
  }

  /**
   * Per domain, the last consumed GTID. After a file-offset start a domain is known from its
   * first transaction (or the next file's GTID_LIST), so the state is complete at once only on
   * single-domain servers.
   */
  tracker(start: BinlogStart): GtidTracker {
    const state = start.kind === 'gtid' ? MariaDbGtidState.parse(start.gtid) : new MariaDbGtidState();
    return {
      add: (gtid) => state.add(gtid),
      merge: (text) => state.merge(MariaDbGtidState.parse(text)),
      toString: () => state.toString() || undefined,
    };
  }
}
