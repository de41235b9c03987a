import type { CdcLogReader } from '../cdc/cdc-dialect.ts';
import type { Lsn } from './lsn.ts';
import type { PgChangeSource } from './pg-change-record.ts';
import type { PgCdcLogReader } from './pg-cdc-log-reader.ts';

/**
 * A reader session's backfill slot streamed once for all its chunks: each chunk's backfill reads
 * on from where the one before it stopped. A stream per backfill cost a replication connection,
 * and made the server decode the WAL again from the slot's restart LSN, which moves only with
 * its running-transactions records (every 15 s): under steady writes three quarters of a chunk's
 * read time (300 of 600 ms to open, 145 to read; `npm run bench -- cdc --dialect postgres`).
 *
 * Reading on from an earlier position is the merge's own rule: any position before the chunk's
 * SELECT will do, as long as every change after it up to HIGH is applied in order. A stream that
 * is past a chunk's LOW took those changes before that chunk's SELECT began, so the SELECT saw
 * them. Chunks are read one at a time; LOWs only grow.
 */
export class BackfillStream {
  readonly #open: (from: Lsn) => Promise<PgCdcLogReader>;
  #stream: { readonly reader: PgCdcLogReader; readonly from: Lsn } | undefined;
  #reading = false;

  constructor(open: (from: Lsn) => Promise<PgCdcLogReader>) {
    this.#open = open;
  }

  /** A chunk's backfill from `low`: the stream as it is, opened at `low` if there is none (or it began after `low`). */
  async view(low: Lsn): Promise<CdcLogReader<Lsn, PgChangeSource>> {
    if (this.#reading) throw new Error('a backfill is already being read on this session');
    if (this.#stream && this.#stream.from > low) await this.close();
    this.#stream ??= { reader: await this.#open(low), from: low };
    this.#reading = true;
    return new BackfillView(this.#stream.reader, (broken) => this.#ended(low, broken));
  }

  async #ended(low: Lsn, broken: boolean): Promise<void> {
    this.#reading = false;
    if (broken) return this.close();
    // Every later LOW is at or after this one: the server may forget the WAL before it.
    this.#stream?.reader.confirm(low);
  }

  async close(): Promise<void> {
    const s = this.#stream;
    this.#stream = undefined;
    await s?.reader.close().catch(() => {});
  }
}

/** One chunk's backfill on the shared stream; closing it leaves the stream open for the next chunk, unless it failed. */
class BackfillView implements CdcLogReader<Lsn, PgChangeSource> {
  readonly #reader: PgCdcLogReader;
  readonly #ended: (broken: boolean) => Promise<void>;
  #broken = false;
  #closed = false;

  constructor(reader: PgCdcLogReader, ended: (broken: boolean) => Promise<void>) {
    this.#reader = reader;
    this.#ended = ended;
  }

  get position(): Lsn {
    return this.#reader.position;
  }

  next(): ReturnType<PgCdcLogReader['next']> {
    try {
      return this.#reader.next();
    } catch (e) {
      this.#broken = true;
      throw e;
    }
  }

  available(): Promise<void> {
    return this.#reader.available().catch((e: unknown) => {
      this.#broken = true;
      throw e;
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#ended(this.#broken);
  }
}
