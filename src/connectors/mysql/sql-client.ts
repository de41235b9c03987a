import mysql from 'mysql2/promise';
import { prepareSnapshotConnection, snapshotTypeCast } from './column-codec.ts';
import type { MySqlConnectionOptions } from './mysql-connection-options.ts';
import { mysql2Runner } from './query-runner.ts';

/** The few queries the CDC source runs, on one connection whose values follow column-codec.ts. */
export interface SqlClient {
  query<T>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

/** Could not reach or log in to the server; names where. */
export class MySqlConnectError extends Error {
  readonly host: string;
  readonly port: number;
  constructor(o: MySqlConnectionOptions, cause: unknown) {
    super(`cannot connect to MySQL/MariaDB at ${o.host}:${o.port} as '${o.user}': ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'MySqlConnectError';
    this.host = o.host;
    this.port = o.port;
  }
}

/** A connection whose values follow column-codec.ts, in the session a snapshot read needs (UTC, utf8mb4). */
export async function connectSql(o: MySqlConnectionOptions, connectTimeoutMs = 10_000): Promise<SqlClient> {
  let conn: mysql.Connection;
  try {
    conn = await mysql.createConnection({
      host: o.host,
      port: o.port,
      user: o.user,
      password: o.password,
      connectTimeout: connectTimeoutMs,
      typeCast: snapshotTypeCast,
      supportBigNumbers: true,
      dateStrings: true,
      // TIMESTAMP values are read in UTC, as the binlog holds them.
      timezone: 'Z',
    });
    await prepareSnapshotConnection(mysql2Runner(conn));
  } catch (e) {
    throw new MySqlConnectError(o, e);
  }
  // A connection the server closes while idle (wait_timeout) emits 'error'; unhandled, that would
  // end the thread. The next query on it fails instead, with that error.
  conn.on('error', () => {});
  return {
    async query<T>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
      // mysql2 writes a bigint as an unquoted literal, so 64-bit keys compare exactly.
      const [rows] = await conn.query({ sql, values: [...params] });
      return rows as T[];
    },
    async close(): Promise<void> {
      await conn.end().catch(() => conn.destroy());
    },
  };
}

/** A schema, table or column name quoted for SQL. */
export function quoteName(name: string): string {
  return `\`${name.replace(/`/g, '``')}\``;
}
