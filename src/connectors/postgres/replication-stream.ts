import type { Lsn } from './lsn.ts';
import { decodePgOutput } from './pgoutput-decoder.ts';
import type { PgOutputMessage } from './pgoutput-message.ts';
import { replicationStreamError, ReplicationStreamError, type PostgresSite } from './postgres-cdc-error.ts';
import { parseReplicationMessage, standbyStatusUpdate, type StandbyStatus } from './replication-message.ts';

/** A pgoutput message, with where the server says it is in the WAL. */
export interface StreamMessage {
  readonly kind: 'message';
  /** XLogData's start: the LSN of the change (of the transaction for Begin, of the commit for Commit). */
  readonly walStart: Lsn;
  readonly message: PgOutputMessage;
}

/** The server's keepalive: it has sent every transaction that committed before `walEnd`. */
export interface StreamKeepalive {
  readonly kind: 'keepalive';
  readonly walEnd: Lsn;
}

export type StreamEvent = StreamMessage | StreamKeepalive;

const DEFAULT_MAX_BUFFERED = 10_000;

/** The parts of pg's internal Connection used here (stable across pg 8). */
export interface PgConnectionInternals {
  once(event: 'replicationStart', f: () => void): void;
  removeListener(event: 'replicationStart', f: () => void): void;
  sendCopyFromChunk(chunk: Buffer): void;
  endCopyFrom(): void;
  query(text: string): void;
  stream: { pause(): void; resume(): void };
}

/**
 * One START_REPLICATION of pgoutput (protocol 1, text values). Messages are decoded into a
 * bounded buffer that next() takes from; while it is full the socket is paused. The server learns
 * what it may release only from acknowledge(): the caller decides when a position is safe.
 *
 * Keepalives that ask for a reply are answered with `write` = everything received and no flush
 * position (InvalidXLogRecPtr): that keeps the connection alive without moving the slot (a
 * logical walsender confirms only a valid flush position), and lets a walsender that is shutting
 * down go: at a fast shutdown it waits until the client's flush position, or its write position
 * when flush is invalid, equals everything it sent, which a flush held back for checkpoints never
 * does (the server's shutdown would hang until the client went away).
 */
export class ReplicationStream {
  readonly slot: string;
  readonly #site: PostgresSite;
  readonly #connection: PgConnectionInternals;
  readonly #maxBuffered: number;
  #queue: StreamEvent[] = [];
  #head = 0;
  #paused = false;
  #error: Error | undefined;
  #ended = false;
  #stopped: (() => void) | undefined;
  #waiter: (() => void) | undefined;
  #acknowledged: StandbyStatus = { write: 0n, flush: 0n, apply: 0n };
  #serverWalEnd: Lsn = 0n;
  /** The furthest WAL position the server has sent (its keepalives' and messages' WAL ends). */
  #received: Lsn = 0n;

  constructor(site: PostgresSite, slot: string, connection: PgConnectionInternals, maxBuffered = DEFAULT_MAX_BUFFERED) {
    this.#site = site;
    this.slot = slot;
    this.#connection = connection;
    this.#maxBuffered = maxBuffered;
  }

  /** Sends START_REPLICATION through `submit` (pg's client.query) and resolves once the server streams. */
  start(submit: (query: CopyBothQuery) => void, sql: string): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let started = false;
      const onStart = () => {
        started = true;
        resolve();
      };
      this.#connection.once('replicationStart', onStart);
      submit(
        new CopyBothQuery(sql, {
          data: (chunk) => this.#onData(chunk),
          error: (e) => {
            const err = replicationStreamError(this.#site, this.slot, e);
            if (!started) {
              this.#connection.removeListener('replicationStart', onStart);
              reject(err);
            }
            this.#end(err);
          },
          end: () => this.#end(new ReplicationStreamError(this.#site, this.slot, 'the server ended the replication stream')),
        }),
      );
    });
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** The highest WAL end the server reported in a keepalive. */
  get serverWalEnd(): Lsn {
    return this.#serverWalEnd;
  }

  get acknowledged(): StandbyStatus {
    return this.#acknowledged;
  }

  /** The next buffered event, or undefined: then await available(). Throws the stream's error. */
  next(): StreamEvent | undefined {
    if (this.#head < this.#queue.length) {
      const ev = this.#queue[this.#head++]!;
      if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
        this.#queue = this.#queue.slice(this.#head);
        this.#head = 0;
      }
      if (this.#paused && this.#queue.length - this.#head <= this.#maxBuffered / 2) {
        this.#paused = false;
        this.#connection.stream.resume();
      }
      return ev;
    }
    if (this.#error) throw this.#error;
    return undefined;
  }

  /** Resolves when next() has something to give (an event or the stream's error). */
  available(): Promise<void> {
    if (this.#head < this.#queue.length || this.#error) return Promise.resolve();
    return new Promise((resolve) => (this.#waiter = resolve));
  }

  /** Tells the server what is written and flushed downstream; `flush` becomes the slot's confirmed_flush_lsn. */
  acknowledge(status: StandbyStatus): void {
    this.#acknowledged = status;
    this.#sendStatus(status.flush);
  }

  /** Ends the stream (CopyDone) and waits for the server to return the connection to commands. */
  stop(): Promise<void> {
    if (this.#ended) return Promise.resolve();
    const done = new Promise<void>((resolve) => (this.#stopped = resolve));
    if (this.#paused) this.#connection.stream.resume();
    this.#connection.endCopyFrom();
    return done;
  }

  /** The connection is closing: fail readers still waiting. */
  abandon(): void {
    this.#end(new ReplicationStreamError(this.#site, this.slot, 'the replication connection was closed'));
  }

  #onData(chunk: Buffer): void {
    if (this.#stopped) return; // stopping: what the server still sends is not wanted
    try {
      const m = parseReplicationMessage(chunk);
      if (m.kind === 'keepalive') {
        if (m.walEnd > this.#serverWalEnd) this.#serverWalEnd = m.walEnd;
        if (m.walEnd > this.#received) this.#received = m.walEnd;
        if (m.replyRequested) this.#sendStatus(0n);
        this.#push({ kind: 'keepalive', walEnd: m.walEnd });
      } else {
        if (m.walEnd > this.#received) this.#received = m.walEnd;
        this.#push({ kind: 'message', walStart: m.walStart, message: decodePgOutput(Buffer.from(m.data)) });
      }
    } catch (e) {
      this.#end(new ReplicationStreamError(this.#site, this.slot, (e as Error).message, e));
    }
  }

  #push(ev: StreamEvent): void {
    this.#queue.push(ev);
    if (!this.#paused && this.#queue.length - this.#head >= this.#maxBuffered) {
      this.#paused = true;
      this.#connection.stream.pause();
    }
    this.#wake();
  }

  #end(e: Error): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#error = e;
    this.#stopped?.();
    this.#wake();
  }

  #wake(): void {
    const w = this.#waiter;
    this.#waiter = undefined;
    w?.();
  }

  /** `flush` 0 (invalid): the slot stays where it is; see the class comment. */
  #sendStatus(flush: Lsn): void {
    if (this.#ended || this.#stopped) return;
    const write = this.#received > this.#acknowledged.write ? this.#received : this.#acknowledged.write;
    this.#connection.sendCopyFromChunk(standbyStatusUpdate({ write, flush, apply: flush === 0n ? 0n : this.#acknowledged.apply }, Date.now()));
  }
}

/**
 * A pg "submittable": pg hands it the connection and routes the server's replies to it. After
 * START_REPLICATION the server answers CopyBothResponse and then CopyData until the stream ends
 * (CopyDone, CommandComplete, ReadyForQuery).
 */
export class CopyBothQuery {
  constructor(
    private readonly sql: string,
    private readonly on: { data(chunk: Buffer): void; error(e: Error): void; end(): void },
  ) {}
  submit(connection: PgConnectionInternals): void {
    connection.query(this.sql);
  }
  handleCopyData(msg: { chunk: Buffer }): void {
    this.on.data(msg.chunk);
  }
  handleError(e: Error): void {
    this.on.error(e);
  }
  handleReadyForQuery(): void {
    this.on.end();
  }
  handleRowDescription(): void {}
  handleDataRow(): void {}
  handleCommandComplete(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyInResponse(): void {}
}
