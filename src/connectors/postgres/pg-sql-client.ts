import pg from 'pg';
import type { PostgresConnectionOptions } from './postgres-connection-options.ts';
import { CopyDataTap } from './copy-data-tap.ts';
import { copyOutSubmittable } from './copy-out.ts';
import type { CopyTextRows, TextRows } from './copy-text-rows.ts';
import { sessionOptions, type PgValueParser } from './pg-value-codec.ts';

/** Parsers by type OID for one query's text-format results; undefined: pg's own. */
export type ResultParsers = (oid: number) => PgValueParser | undefined;

/**
 * A plain SQL session under the codec's session settings. pg's types never leave this file, so
 * weir's public declarations do not need @types/pg.
 */
export class PgSqlClient {
  readonly host: string;
  readonly port: number;
  readonly #client: pg.Client;
  /** CopyData messages past pg's parser (undefined: through it, as ever). */
  readonly #tap: CopyDataTap | undefined;
  #tail: Promise<unknown> = Promise.resolve();

  private constructor(o: PostgresConnectionOptions, client: pg.Client) {
    this.host = o.host;
    this.port = o.port;
    this.#client = client;
    this.#tap = CopyDataTap.install(client);
  }

  static async connect(o: PostgresConnectionOptions): Promise<PgSqlClient> {
    const client = new pg.Client({
      host: o.host,
      port: o.port,
      user: o.user,
      password: o.password,
      database: o.database,
      connectionTimeoutMillis: o.connectTimeoutMs ?? 10_000,
      options: sessionOptions(),
    });
    // A connection lost between queries surfaces at the next query; without a listener it would crash the process.
    client.on('error', () => {});
    await client.connect();
    return new PgSqlClient(o, client);
  }

  /**
   * Rows as objects; with `parsers`, every text column of a type they know goes through them.
   * Queries run one after another: pg deprecates queueing a query while one runs, and a reader's
   * session is shared by its type look-ups and its slot-lag figure.
   */
  query<R = Record<string, unknown>>(text: string, params: readonly unknown[] = [], parsers?: ResultParsers): Promise<R[]> {
    const types = parsers ? { getTypeParser: typeParser(parsers) } : undefined;
    const run = this.#tail.then(() => this.#client.query({ text, values: params as unknown[], ...(types ? { types } : {}) }));
    this.#tail = run.catch(() => {});
    return run.then((result) => result.rows as R[]);
  }

  /**
   * Runs `text`, a `COPY … TO STDOUT` in text format maybe followed by other statements (one
   * simple query: one round trip, one transaction), handing the rows' text to `onRows` as they
   * come; in turn with the queries. Resolves with the rows of the statements after the COPY, as text.
   */
  copyOut(text: string, onRows: CopyTextRows): Promise<TextRows[]> {
    const run = this.#tail.then(() => {
      const copy = copyOutSubmittable(text, onRows, this.#tap);
      void this.#client.query(copy.submittable as unknown as pg.QueryConfig);
      return copy.finished;
    });
    this.#tail = run.catch(() => {});
    return run;
  }

  async close(): Promise<void> {
    await this.#client.end().catch(() => {});
  }
}

function typeParser(parsers: ResultParsers) {
  // pg asks per column: text results go through ours, anything else (unused here) through pg's.
  return ((oid: number, format?: string) => {
    if (format === 'binary') return pg.types.getTypeParser(oid, 'binary');
    return parsers(oid) ?? pg.types.getTypeParser(oid, 'text');
  }) as typeof pg.types.getTypeParser;
}
