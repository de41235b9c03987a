import type { CdcColumn } from '../cdc/schema-change.ts';
import { maxLsn, type Lsn } from './lsn.ts';
import type { PgChangeSource } from './pg-change-record.ts';
import { PgChangeAssembler, type AssembledEvent } from './pg-change-assembler.ts';
import { PgSqlClient } from './pg-sql-client.ts';
import { PgTypeCatalog } from './pg-type-catalog.ts';
import type { PostgresConnectionOptions } from './postgres-connection-options.ts';
import { ReplicationConnection, type StreamOptions } from './replication-connection.ts';
import type { ReplicationStream } from './replication-stream.ts';

/** A change, a truncate, a transaction's end, or the server's position while nothing else comes. */
export type LogEvent = Exclude<AssembledEvent, { kind: 'relation' }> | { readonly kind: 'keepalive'; readonly walEnd: Lsn } | RelationEvent;

/** With `relations`: a relation described inside a transaction, its columns' types as text. */
export interface RelationEvent {
  readonly kind: 'relation';
  readonly schema: string;
  readonly table: string;
  readonly columns: readonly CdcColumn[];
  readonly source: PgChangeSource;
  readonly lsn: Lsn;
}

export interface PgLogReaderParts {
  readonly database: string;
  readonly stream: ReplicationStream;
  /** A SQL session to look up the types of the columns of relations the stream describes. */
  readonly sql: PgSqlClient;
  readonly catalog: PgTypeCatalog;
  readonly warn: (message: string) => void;
  /** Pass on the relations the stream describes inside transactions (schema tracking); default false. */
  readonly relations?: boolean;
  /** Run after the stream stopped, to release what the reader's opener made for it. */
  readonly onClose?: () => Promise<void>;
}

/**
 * A slot's change stream as change records. `position` is how far the WAL has been read: past
 * every transaction whose commit came, and up to the server's WAL end when a keepalive says so
 * between transactions (a backfill stops once it reaches HIGH).
 */
export class PgLogReader {
  readonly #p: PgLogReaderParts;
  readonly #assembler: PgChangeAssembler;
  #position: Lsn;

  constructor(parts: PgLogReaderParts, start: Lsn) {
    this.#p = parts;
    this.#assembler = new PgChangeAssembler(parts.database, parts.catalog, parts.warn);
    this.#position = start;
  }

  /** Opens its own replication and SQL connections, closed with the reader. */
  static async open(o: PostgresConnectionOptions & StreamOptions & { warn(message: string): void }): Promise<PgLogReader> {
    const conn = await ReplicationConnection.connect(o);
    let sql: PgSqlClient | undefined;
    try {
      sql = await PgSqlClient.connect(o);
      const stream = await conn.stream(o);
      const s = sql;
      return new PgLogReader({ database: o.database, stream, sql, catalog: new PgTypeCatalog(), warn: o.warn, onClose: async () => {
        await conn.close();
        await s.close();
      } }, o.start);
    } catch (e) {
      await conn.close();
      await sql?.close();
      throw e;
    }
  }

  get position(): Lsn {
    return this.#position;
  }

  get inTransaction(): boolean {
    return this.#assembler.inTransaction;
  }

  get stream(): ReplicationStream {
    return this.#p.stream;
  }

  /** The next event, waiting for the server as needed. */
  async read(): Promise<LogEvent> {
    for (;;) {
      const ev = this.#p.stream.next();
      if (!ev) {
        await this.#p.stream.available();
        continue;
      }
      if (ev.kind === 'keepalive') {
        if (!this.#assembler.inTransaction) this.#position = maxLsn(this.#position, ev.walEnd);
        return ev;
      }
      const out = this.#assembler.accept(ev.walStart, ev.message);
      if (!out) continue;
      if (out.kind === 'relation') {
        const rel = out.relation;
        await this.#p.catalog.load(this.#p.sql, rel.columns.map((c) => c.typeOid));
        if (!this.#p.relations || !out.source || out.lsn === undefined) continue;
        const columns = rel.columns.map((c) => ({ name: c.name, type: this.#p.catalog.typeName(c.typeOid, c.typeMod) }));
        return { kind: 'relation', schema: rel.schema, table: rel.table, columns, source: out.source, lsn: out.lsn };
      }
      if (out.kind === 'commit') this.#position = maxLsn(this.#position, out.endLsn);
      return out;
    }
  }

  /** `lsn` becomes the slot's confirmed_flush_lsn: the server may drop WAL before it. */
  acknowledge(lsn: Lsn): void {
    this.#p.stream.acknowledge({ write: lsn, flush: lsn, apply: lsn });
  }

  async close(): Promise<void> {
    await this.#p.stream.stop();
    await this.#p.onClose?.();
  }
}
