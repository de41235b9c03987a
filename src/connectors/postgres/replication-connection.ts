import pg from 'pg';
import { formatLsn, parseLsn, type Lsn } from './lsn.ts';
import { sessionOptions } from './pg-value-codec.ts';
import { quoteIdent, quoteLiteral } from './pg-quote.ts';
import type { PostgresConnectionOptions } from './postgres-connection-options.ts';
import { ReplicationStreamError } from './postgres-cdc-error.ts';
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
 * settings so that pgoutput prints values as a snapshot SELECT does. It runs one
 * START_REPLICATION at a time; a stream stopped with stop() leaves it ready for the next, and a
 * temporary slot made on it lives until it closes.
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

  /** A slot dropped by the server when this connection ends (however it ends); returns its consistent point. */
  async createTemporarySlot(slot: string): Promise<Lsn> {
    const res = await this.#client.query(`CREATE_REPLICATION_SLOT ${quoteIdent(slot)} TEMPORARY LOGICAL pgoutput NOEXPORT_SNAPSHOT`);
    return parseLsn(String(res.rows[0]?.consistent_point));
  }

  async stream(o: StreamOptions): Promise<ReplicationStream> {
    if (this.#streaming && !this.#streaming.ended) throw new Error('a replication connection runs one stream at a time: stop the previous one first');
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

export { ReplicationStreamError };
