import type { CdcLogEvent, CdcLogReader } from '../cdc/cdc-dialect.ts';
import type { CdcSchemaEvent } from '../cdc/schema-change.ts';
import { maxLsn, type Lsn } from './lsn.ts';
import type { PgChangeSource } from './pg-change-record.ts';
import type { LogEvent } from './pg-log-reader.ts';

/** What this reader needs of a slot's change stream (PgLogReader). */
export interface PgLogSource {
  readonly position: Lsn;
  readonly inTransaction: boolean;
  read(): Promise<LogEvent>;
  acknowledge(lsn: Lsn): void;
  close(): Promise<void>;
}

/** Tables whose rows the reader passes on (others' commits still come as boundaries). */
export type PgTableFilter = (schema: string, table: string) => boolean;

export interface PgCdcLogReaderOptions {
  readonly include: PgTableFilter;
  /** Events buffered before the pump stops reading the stream. */
  readonly maxBuffered?: number;
  /**
   * Completed checkpoints a confirmed LSN lags behind (null: never confirm, e.g. a backfill that
   * confirms on close instead).
   */
  readonly confirmDelay: number | null;
  /** Confirmed on close (a backfill's LOW, which every later LOW of its slot is at or after). */
  readonly confirmOnClose?: Lsn;
  readonly warn: (message: string) => void;
  /** The slot's lag in bytes (slot-lag.ts), asked at open and every `slotLagIntervalMs` (the WAL phase's reader only). */
  readonly slotLag?: () => Promise<number | null>;
  readonly slotLagIntervalMs?: number;
}

/**
 * The CDC core's view of a slot's stream: rows events per change (one row each, at their
 * transaction's commit LSN), a boundary after each commit. `position` moves as events are taken:
 * to a transaction's commit LSN when its Begin is taken (every earlier commit has come), past it
 * at its commit, and between transactions to the server's WAL end from keepalives. So a backfill
 * reading while position < HIGH stops before the first transaction committed at or after HIGH.
 *
 * The slot's confirmed LSN moves only on checkpointComplete, `confirmDelay` checkpoints late; and
 * while no captured change has come since the LSN being confirmed, up to the server's WAL end
 * from keepalives (nothing in flight: an idle publication must not hold WAL back).
 */
export class PgCdcLogReader implements CdcLogReader<Lsn, PgChangeSource> {
  readonly #log: PgLogSource;
  readonly #o: PgCdcLogReaderOptions;
  readonly #maxBuffered: number;
  #queue: Entry[] = [];
  #head = 0;
  #waiter: (() => void) | undefined;
  #room: (() => void) | undefined;
  #error: Error | undefined;
  #closed = false;
  #position: Lsn;
  /** End of the last transaction that had captured rows. */
  #lastRowsEnd: Lsn = 0n;
  #txHasRows = false;
  #completed: Lsn[] = [];
  #confirmed: Lsn = 0n;
  #truncateWarned = false;
  /** Schema changes (RELATION, TRUNCATE) waiting for the event after them to carry them. */
  #schemaChanges: CdcSchemaEvent<Lsn, PgChangeSource>[] = [];
  #positionMoved = false;
  #slotLagBytes: number | undefined;
  #lagTimer: NodeJS.Timeout | undefined;

  constructor(log: PgLogSource, o: PgCdcLogReaderOptions) {
    this.#log = log;
    this.#o = o;
    this.#maxBuffered = o.maxBuffered ?? 10_000;
    this.#position = log.position;
    void this.#pump();
    if (o.slotLag) {
      const ask = () => void o.slotLag!().then((lag) => (this.#slotLagBytes = lag ?? undefined), () => {});
      ask();
      this.#lagTimer = setInterval(ask, o.slotLagIntervalMs ?? 5000);
      this.#lagTimer.unref();
    }
  }

  /** `wal_slot_lag_bytes`: WAL the server keeps for the slot beyond its confirmed LSN (the dashboard's CDC card shows it). */
  metrics(): Record<string, number> {
    return this.#slotLagBytes === undefined ? {} : { wal_slot_lag_bytes: this.#slotLagBytes };
  }

  /** Events taken from the source but not yet by next(), and positions not yet reached. */
  get buffered(): number {
    return this.#queue.length - this.#head;
  }

  get position(): Lsn {
    return this.#position;
  }

  /** The LSN this reader last confirmed to the server (0 before any). */
  get confirmed(): Lsn {
    return this.#confirmed;
  }

  next(): CdcLogEvent<Lsn, PgChangeSource> | undefined {
    while (this.#head < this.#queue.length) {
      const entry = this.#queue[this.#head++]!;
      if (this.#head === this.#queue.length) {
        this.#queue = [];
        this.#head = 0;
      }
      const room = this.#room;
      this.#room = undefined;
      room?.();
      if (entry.position !== undefined) this.#position = maxLsn(this.#position, entry.position);
      if (entry.event) return entry.event;
      // A position marker: the caller looks at `position` again before asking for more.
      this.#positionMoved = true;
      return undefined;
    }
    if (this.#error) throw this.#error;
    return undefined;
  }

  /** Resolves when an event is buffered or `position` moved; rejects with the reader's failure. */
  available(): Promise<void> {
    if (this.#positionMoved || this.#head < this.#queue.length) {
      this.#positionMoved = false;
      return Promise.resolve();
    }
    if (this.#error) return Promise.reject(this.#error);
    return new Promise((resolve, reject) => (this.#waiter = () => (this.#error && this.#head >= this.#queue.length ? reject(this.#error) : resolve())));
  }

  checkpointComplete(position: Lsn): void {
    if (this.#o.confirmDelay === null) return;
    this.#completed.push(position);
    if (this.#completed.length <= this.#o.confirmDelay) return;
    this.#confirm(this.#completed.shift()!);
  }

  /** Lets the server forget the WAL before `lsn` (a shared backfill stream's LOW, which every later LOW is at or after). */
  confirm(lsn: Lsn): void {
    this.#confirm(lsn);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#lagTimer);
    if (this.#o.confirmOnClose !== undefined) this.#log.acknowledge(this.#o.confirmOnClose);
    this.#room?.();
    await this.#log.close();
  }

  #confirm(lsn: Lsn): void {
    if (lsn <= this.#confirmed) return;
    this.#confirmed = lsn;
    this.#log.acknowledge(lsn);
  }

  async #pump(): Promise<void> {
    try {
      while (!this.#closed) {
        if (this.#queue.length - this.#head >= this.#maxBuffered) {
          await new Promise<void>((resolve) => (this.#room = resolve));
          continue;
        }
        const e = await this.#log.read();
        switch (e.kind) {
          case 'change': {
            const r = e.record;
            if (!this.#o.include(r.source.schema, r.source.table)) break;
            this.#txHasRows = true;
            this.#push(undefined, {
              type: 'rows',
              op: r.op as 'c' | 'u' | 'd',
              db: r.source.schema,
              table: r.source.table,
              rows: [{ before: r.before, after: r.after, ...(r.unchangedColumns ? { unchangedColumns: r.unchangedColumns } : {}) }],
              txnStart: e.commitLsn,
              at: e.commitLsn,
              ts: r.source.ts,
              source: () => r.source,
            });
            break;
          }
          case 'begin':
            this.#push(e.finalLsn);
            break;
          case 'commit':
            if (this.#txHasRows) this.#lastRowsEnd = e.endLsn;
            this.#txHasRows = false;
            this.#push(e.endLsn, { type: 'boundary', next: e.endLsn });
            break;
          case 'relation':
            if (this.#o.include(e.schema, e.table)) this.#schemaChanges.push({ db: e.schema, table: e.table, columns: e.columns, at: e.lsn, ts: e.source.ts, source: e.source });
            break;
          case 'truncate':
            e.sources.forEach((source) => {
              if (this.#o.include(source.schema, source.table)) this.#schemaChanges.push({ db: source.schema, table: source.table, changes: [{ kind: 'truncate.table' }], at: e.lsn, ts: e.ts, source });
            });
            if (!this.#truncateWarned) {
              this.#truncateWarned = true;
              this.#o.warn(`TRUNCATE of ${e.tables.join(', ')} is not replayed as row deletes: downstream copies keep the rows (as Flink CDC's Postgres source)`);
            }
            break;
          case 'keepalive':
            if (!this.#log.inTransaction) this.#push(e.walEnd);
            this.#idleConfirm(e.walEnd);
            break;
        }
      }
    } catch (e) {
      if (!this.#closed) this.#error = e as Error;
      this.#wake();
    }
  }

  /** Nothing captured since the confirmed LSN and none open: the server's WAL end may be confirmed. */
  #idleConfirm(walEnd: Lsn): void {
    if (this.#o.confirmDelay === null || this.#confirmed === 0n) return;
    if (this.#log.inTransaction || this.#lastRowsEnd > this.#confirmed) return;
    this.#confirm(walEnd);
  }

  #push(position: Lsn | undefined, event?: CdcLogEvent<Lsn, PgChangeSource>): void {
    if (event && this.#schemaChanges.length > 0) {
      event = { ...event, schemaChanges: this.#schemaChanges };
      this.#schemaChanges = [];
    }
    this.#queue.push({ position, event });
    this.#wake();
  }

  #wake(): void {
    const w = this.#waiter;
    this.#waiter = undefined;
    w?.();
  }
}

/** An event to give, a position reached, or both (a commit's boundary). */
interface Entry {
  readonly position: Lsn | undefined;
  readonly event?: CdcLogEvent<Lsn, PgChangeSource>;
}
