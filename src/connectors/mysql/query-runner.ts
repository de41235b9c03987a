/**
 * What the helpers here need from a connection: rows for a query. The CDC source's SqlClient fits
 * as it is; a mysql2/promise connection or pool fits through `mysql2Runner`.
 */
export interface QueryRunner {
  query(sql: string, params?: readonly unknown[]): Promise<unknown[]>;
}

/** Adapts a mysql2/promise Connection, PoolConnection or Pool (whose query resolves to [rows, fields]). */
export function mysql2Runner(conn: { query(sql: string, values?: any): Promise<[unknown, unknown]> }): QueryRunner {
  return {
    async query(sql, params) {
      const [rows] = await conn.query(sql, params ? [...params] : undefined);
      // Statements without a result set (SET, DDL) give an OK packet, not rows.
      return Array.isArray(rows) ? rows : [];
    },
  };
}

/** The rows of a query as plain records. */
export async function queryRecords(conn: QueryRunner, sql: string, params?: readonly unknown[]): Promise<Array<Record<string, unknown>>> {
  return (await conn.query(sql, params)) as Array<Record<string, unknown>>;
}
