import pg from 'pg';
import { formatLsn, type Lsn } from './lsn.ts';
import { sessionOptions } from './pg-value-codec.ts';
import { quoteIdent, quoteLiteral } from './pg-quote.ts';
import type { PostgresConnectionOptions } from './postgres-connection-options.ts';
import { ReplicationStream, type PgConnectionInternals } from './replication-stream.ts';

export interface StreamOptions {
  readonly slot: string;
  readonly publication: string;
  /** Where to start; the server starts at the slot's confirmed_flush_lsn if that is later. */
  readonly start: Lsn;
  /** Messages buffered before reading from the server pauses. */
  readonly maxBuffered?: number;
}

/**
 * A connection in logical replication mode (`replication=database`), under the codec's session
 * settings so that pgoutput prints values as a snapshot SELECT does. It streams once.
 */
export class ReplicationConnection {
  readonly #o: PostgresConnectionOptions;
  readonly #client: pg.Client;
  #streaming: ReplicationStream | undefined;

  private constructor(o: PostgresConnectionOptions, client: pg.Client) {
    this.#o = o;
    this.#client = client;
  }

  static async connect(o: PostgresConnectionOptions): Promise<ReplicationConnection> {
    const client = new pg.Client({
      host: o.host,
      port: o.port,
      user: o.user,
      password: o.password,
      database: o.database,
      connectionTimeoutMillis: o.connectTimeoutMs ?? 10_000,
      replication: 'database',
      options: sessionOptions(),
    } as pg.ClientConfig);
    client.on('error', () => {}); // surfaced by the stream or the next command
    try {
      await client.connect();
    } catch (e) {
      await client.end().catch(() => {});
      throw e;
    }
    return new ReplicationConnection(o, client);
  }

  async stream(o: StreamOptions): Promise<ReplicationStream> {
    // A walsender serves one logical START_REPLICATION per connection (PostgreSQL 15 ends a second
    // one at once): a new stream needs a new connection.
    if (this.#streaming) throw new Error('a replication connection streams once: open a new connection for another stream');
    const sql =
      `START_REPLICATION SLOT ${quoteIdent(o.slot)} LOGICAL ${formatLsn(o.start)} ` +
      `(proto_version '1', publication_names ${quoteLiteral(quoteIdent(o.publication))})`;
    const connection = (this.#client as unknown as { connection: PgConnectionInternals }).connection;
    const stream = new ReplicationStream(this.#o, o.slot, connection, o.maxBuffered);
    this.#streaming = stream;
    await stream.start((query) => this.#client.query(query as unknown as pg.QueryConfig), sql);
    return stream;
  }

  async close(): Promise<void> {
    this.#streaming?.abandon();
    await this.#client.end().catch(() => {});
  }
}

