import type { BinlogPosition, BinlogStart } from './binlog-position.ts';
import { MariaDbGtidStrategy } from './mariadb-gtid-strategy.ts';
import { MySqlGtidStrategy } from './mysql-gtid-strategy.ts';
import { queryRecords, type QueryRunner } from './query-runner.ts';

/** The GTID state of what a reader has consumed, in the flavor's own syntax. */
export interface GtidTracker {
  /** A transaction with this GTID was consumed completely. */
  add(gtid: string): void;
  /** The log's own statement of the state so far (MariaDB GTID_LIST, MySQL PREVIOUS_GTIDS). */
  merge(state: string): void;
  /** undefined while nothing is known (a file-position start before the first transaction). */
  toString(): string | undefined;
}

/** What differs between MariaDB's and MySQL's GTIDs and binlog dump commands. */
export interface GtidStrategy {
  readonly flavor: 'mariadb' | 'mysql';
  /** The server's current binlog end (SHOW MASTER STATUS or its successor) with its GTID state. */
  currentPosition(conn: QueryRunner): Promise<BinlogPosition>;
  /** The binlog end without the GTID state, in one query (a snapshot chunk's watermarks need no more). */
  currentOffset(conn: QueryRunner): Promise<BinlogPosition>;
  /** Session statements on the dump connection before the dump command. */
  dumpSessionStatements(start: BinlogStart, heartbeatMs: number): string[];
  /** The dump command's payload (command byte first) that starts at `start`. */
  dumpPayload(start: BinlogStart, serverId: number): Buffer;
  /** Tracks the GTID state, starting from what the start position says. */
  tracker(start: BinlogStart): GtidTracker;
}

/** Picks the strategy from `SELECT VERSION()`. */
export async function detectGtidStrategy(conn: QueryRunner): Promise<GtidStrategy> {
  const [row] = await queryRecords(conn, 'SELECT VERSION() AS version');
  const version = String(row?.version ?? '');
  return /mariadb/i.test(version) ? new MariaDbGtidStrategy(version) : new MySqlGtidStrategy(version);
}

/** COM_BINLOG_DUMP: position (4 bytes, so files up to 4 GiB), flags, server id, file name. */
export function binlogDumpPayload(file: string, pos: number, serverId: number, flags = 0): Buffer {
  const name = Buffer.from(file, 'utf8');
  const out = Buffer.alloc(11 + name.length);
  out[0] = 0x12;
  out.writeUInt32LE(pos, 1);
  out.writeUInt16LE(flags, 5);
  out.writeUInt32LE(serverId, 7);
  name.copy(out, 11);
  return out;
}

/** A SHOW MASTER STATUS row's file and position (the position may come as bigint or string). */
export function statusPosition(row: Record<string, unknown> | undefined, what: string): { file: string; pos: number } {
  const file = row?.File;
  const pos = row?.Position;
  if (file === undefined || file === null || pos === undefined || pos === null) {
    throw new Error(`${what} returned no binlog position: is binary logging enabled (log_bin)?`);
  }
  return { file: Buffer.isBuffer(file) ? file.toString('utf8') : String(file), pos: Number(pos) };
}

/** A string literal for a SET statement. */
export function sqlString(s: string): string {
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}
