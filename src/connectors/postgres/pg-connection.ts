import pg from 'pg';
import type { PostgresConnectionOptions } from './postgres-sink-options.ts';
import type { SqlRunner } from './sql-runner.ts';
import type { CopyIn } from './copy-in.ts';

/** A connected pg client (kept inside the connector: no pg type crosses its public surface). */
export interface PgConnection {
  readonly sql: SqlRunner;
  /** Starts `copy` (a COPY … FROM STDIN fed as its data comes); settles when the server has answered it. */
  copyIn(copy: CopyIn): Promise<void>;
  /** The first error the connection reported outside a query (the server went away). */
  readonly broken: () => Error | undefined;
  /**
   * Ends the session from the server's side (pg_terminate_backend from a connection of its own):
   * a statement waiting for a row lock that a prepared transaction holds, which only a later
   * attempt's recovery ends, would otherwise never return, and `end()` waits for it.
   */
  terminate(): Promise<void>;
  end(): Promise<void>;
}

export function serverOf(o: PostgresConnectionOptions): string {
  return `${o.host}:${o.port ?? 5432}`;
}

export async function connectPg(o: PostgresConnectionOptions, applicationName: string): Promise<PgConnection> {
  const settings = { host: o.host, port: o.port ?? 5432, user: o.user, password: o.password, database: o.database, connectionTimeoutMillis: 10_000 };
  const client = new pg.Client({ ...settings, application_name: applicationName });
  let broken: Error | undefined;
  client.on('error', (e: Error) => (broken ??= e));
  await client.connect();
  return {
    sql: async <R>(text: string, values?: readonly unknown[]) => (await client.query(text, values as unknown[] | undefined)).rows as R[],
    broken: () => broken,
    copyIn: (copy) => {
      client.query(copy.submittable() as unknown as pg.QueryConfig);
      return copy.finished;
    },
    terminate: async () => {
      const pid = (client as unknown as { processID: number | null }).processID;
      if (pid === null) return;
      const side = new pg.Client({ ...settings, application_name: `${applicationName} (ending its session)` });
      side.on('error', () => {});
      try {
        await side.connect();
        await side.query('SELECT pg_terminate_backend($1)', [pid]);
      } catch {
        // The server is away: the session's statements fail by themselves.
      } finally {
        await side.end().catch(() => {});
      }
    },
    end: () => client.end().catch(() => {}),
  };
}

/** PostgreSQL's SQLSTATE of an error, if it is one of the server's. */
export function sqlState(e: unknown): string | undefined {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/** Classes 22 (data exception) and 23 (integrity constraint violation): the row itself is refused, and would be on every replay. */
export function isRefusal(e: unknown): boolean {
  const state = sqlState(e);
  return state !== undefined && (state.startsWith('22') || state.startsWith('23'));
}

/** Literal for a gid: the prefix is plain (transaction-id.ts), so quoting is all it needs. */
export function gidLiteral(gid: string): string {
  return `'${gid.replace(/'/g, "''")}'`;
}
