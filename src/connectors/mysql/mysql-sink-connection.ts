import mysql from 'mysql2/promise';
import type { DeadLetter } from '../../api/dead-letter.ts';
import type { MySqlConnectionOptions } from './mysql-connection-options.ts';

/** One statement's rows (none for statements without a result set); `values` fill `?` placeholders, nested arrays as lists. */
export type MySqlRunner = <R = Record<string, unknown>>(sql: string, values?: readonly unknown[]) => Promise<R[]>;

export interface MySqlSinkConnection {
  readonly sql: MySqlRunner;
  end(): Promise<void>;
}

export function mysqlServerOf(o: MySqlConnectionOptions): string {
  return `${o.host}:${o.port}`;
}

/** A mysql2 connection (kept inside the connector: no mysql2 type crosses its public surface). */
export async function connectMySql(o: MySqlConnectionOptions): Promise<MySqlSinkConnection> {
  const conn = await mysql.createConnection({ host: o.host, port: o.port, user: o.user, password: o.password, database: o.database, connectTimeout: 10_000, supportBigNumbers: true, dateStrings: false });
  conn.on('error', () => {});
  return {
    sql: async <R>(text: string, values?: readonly unknown[]) => {
      const [rows] = await conn.query(text, values ? [...values] : undefined);
      return (Array.isArray(rows) ? rows : []) as R[];
    },
    end: () => conn.end().catch(() => conn.destroy()),
  };
}

/** The server's error number, if it is one. */
export function mysqlErrno(e: unknown): number | undefined {
  const n = (e as { errno?: unknown } | null)?.errno;
  return typeof n === 'number' ? n : undefined;
}

/**
 * Errors about the row itself (duplicate key, NULL, too long, out of range, a wrong value, a
 * foreign key, a CHECK constraint in MariaDB and MySQL): a replay would be refused again.
 */
const REFUSALS = new Set([1062, 1048, 1406, 1264, 1366, 1292, 1452, 1451, 4025, 3819, 1265]);

export function isMySqlRefusal(e: unknown): boolean {
  const n = mysqlErrno(e);
  return n !== undefined && REFUSALS.has(n);
}

/** The constraint or key a refusal names: `for key 'x'`, `CONSTRAINT \`x\``. */
export function refusedConstraint(e: unknown): string | undefined {
  const message = e instanceof Error ? e.message : String(e);
  return /for key '([^']+)'/.exec(message)?.[1] ?? /CONSTRAINT `([^`]+)`/.exec(message)?.[1];
}

/** A record the server refused, as the dead-letter output carries it: constraint (if named), SQLSTATE, errno and message. */
export function mysqlDeadLetter(target: string, table: string, record: unknown, e: unknown): DeadLetter {
  const constraint = refusedConstraint(e);
  const state = (e as { sqlState?: unknown } | null)?.sqlState;
  const errno = mysqlErrno(e);
  const reason = e instanceof Error ? e.message : String(e);
  return { record, target, table, ...(constraint ? { constraint } : {}), ...(typeof state === 'string' ? { code: state } : {}), ...(errno !== undefined ? { errno } : {}), reason };
}

/** An xid as XA statements take it: 'gtrid','bqual' (the prefix is plain, see transaction-id.ts). */
export function xidLiteral(gtrid: string, bqual: string): string {
  return `'${gtrid.replace(/'/g, "''")}','${bqual.replace(/'/g, "''")}'`;
}
