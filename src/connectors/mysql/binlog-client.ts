import mysql, { type Connection } from 'mysql2';
import type { Socket } from 'node:net';
import { BinlogDecoder, type DecodeOutcome } from './binlog-decoder.ts';
import { BinlogDumpCommand, type Mysql2Internals } from './binlog-dump-command.ts';
import { BinlogError, BinlogSchemaError, BinlogServerError } from './binlog-error.ts';
import type { BinlogEvent } from './binlog-event.ts';
import type { BinlogPosition, BinlogStart } from './binlog-position.ts';
import { detectGtidStrategy, type GtidStrategy } from './gtid-strategy.ts';
import type { MySqlConnectionOptions } from './mysql-connection-options.ts';
import { mysql2Runner } from './query-runner.ts';
import { binlogChecksum, checkBinlogSettings } from './server-check.ts';
import { TableSchemaError, type TableSchemaCache } from './table-schema.ts';
import type { TrackedColumns } from './tracked-columns.ts';

export interface BinlogClientOptions extends MySqlConnectionOptions {
  /** This reader's replica id: unique among everything reading the server's binlog. */
  serverId: number;
  start: BinlogStart;
  /** Row events of other tables are skipped undecoded (their commits still come). */
  include?: (db: string, table: string) => boolean;
  schemas: TableSchemaCache;
  /** The core's tracked columns: what rows written before a later ALTER are decoded by. */
  tracked?: TrackedColumns;
  /** Rows (an event without rows counts one) buffered before reading from the server pauses. */
  maxBufferedRows?: number;
  /** The server sends a heartbeat after this long without events. */
  heartbeatMs?: number;
  connectTimeoutMs?: number;
}

type Buffered = { readonly event: BinlogEvent; readonly position: BinlogPosition; readonly weight: number };
type Item = Buffered | { marker: BinlogPosition };

const DEFAULT_MAX_BUFFERED_ROWS = 10_000;
const DEFAULT_HEARTBEAT_MS = 30_000;
// The dump's writes to a paused reader block; the server drops the dump after this many seconds.
const NET_WRITE_TIMEOUT_S = 3600;

/**
 * Reads row changes from a MySQL/MariaDB binlog as a replica does, over its own connection:
 * events are decoded as they arrive into a bounded buffer that next() takes from; while the
 * buffer is full the socket is paused, so the server waits instead of memory growing.
 */
export class BinlogClient {
  readonly flavor: GtidStrategy['flavor'];
  readonly #o: BinlogClientOptions;
  readonly #conn: Connection;
  readonly #internals: Mysql2Internals;
  readonly #decoder: BinlogDecoder;
  readonly #maxWeight: number;
  #queue: Item[] = [];
  #head = 0;
  #weight = 0;
  #events = 0;
  #position: BinlogPosition;
  /** Raw events waiting for a schema load to finish (in order). */
  #pendingRaw: Buffer[] = [];
  #loadingSchema = false;
  #paused = false;
  #resumeScheduled = false;
  #error: BinlogError | undefined;
  #closed = false;
  #waiters: Array<{ resolve(): void; reject(e: Error): void }> = [];
  #firstEvent: { resolve(): void; reject(e: Error): void } | undefined;

  private constructor(o: BinlogClientOptions, conn: Connection, strategy: GtidStrategy, checksum: boolean) {
    this.#o = o;
    this.#conn = conn;
    this.#internals = conn as unknown as Mysql2Internals;
    this.flavor = strategy.flavor;
    this.#maxWeight = o.maxBufferedRows ?? DEFAULT_MAX_BUFFERED_ROWS;
    this.#decoder = new BinlogDecoder({
      host: o.host,
      port: o.port,
      start: o.start,
      tracker: strategy.tracker(o.start),
      schemas: o.schemas,
      ...(o.tracked ? { tracked: o.tracked } : {}),
      include: o.include,
      checksum,
      flavor: strategy.flavor,
    });
    this.#position = this.#decoder.position;
  }

  /**
   * Connects, checks that the server's binlog is usable (ROW format, FULL images), starts the
   * dump, and resolves once the server has answered it (so a bad start position fails here).
   */
  static async open(o: BinlogClientOptions): Promise<BinlogClient> {
    if (!Number.isInteger(o.serverId) || o.serverId < 1 || o.serverId > 0xffffffff) {
      throw new BinlogError(o, `serverId ${o.serverId} must be an integer in 1..4294967295`);
    }
    const conn = await connect(o);
    try {
      const runner = mysql2Runner(conn.promise());
      await checkBinlogSettings(runner, o);
      const strategy = await detectGtidStrategy(runner);
      const checksum = (await binlogChecksum(runner)) !== 'NONE';
      const statements = [`SET SESSION net_write_timeout = ${NET_WRITE_TIMEOUT_S}`, ...strategy.dumpSessionStatements(o.start, o.heartbeatMs ?? DEFAULT_HEARTBEAT_MS)];
      for (const sql of statements) await runner.query(sql);
      const client = new BinlogClient(o, conn, strategy, checksum);
      await client.#startDump(strategy.dumpPayload(o.start, o.serverId));
      return client;
    } catch (e) {
      conn.destroy();
      if (e instanceof BinlogError) throw e;
      throw new BinlogError(o, `cannot start reading the binlog: ${(e as Error).message}`, { cause: e });
    }
  }

  /** The next buffered event, or undefined when none is buffered (see available()). */
  next(): BinlogEvent | undefined {
    if (this.#head >= this.#queue.length) return undefined;
    const item = this.#queue[this.#head++]!;
    if (!('event' in item)) throw new Error('binlog client: a position marker at the head of the queue');
    this.#weight -= item.weight;
    this.#events--;
    this.#position = item.position;
    // Skipped events right after this one move the position with it (the head stays an event).
    while (this.#head < this.#queue.length && 'marker' in this.#queue[this.#head]!) this.#position = (this.#queue[this.#head++] as { marker: BinlogPosition }).marker;
    this.#compact();
    this.#flow();
    return item.event;
  }

  /**
   * Resolves when next() has an event, or when `position` moved past skipped events (other
   * tables' transactions need no event to be passed); rejects with the reader's error once
   * everything buffered before it was taken.
   */
  available(): Promise<void> {
    if (this.#head < this.#queue.length) return Promise.resolve();
    if (this.#error) return Promise.reject(this.#error);
    if (this.#closed) return Promise.reject(new BinlogError(this.#site(), 'the binlog client is closed'));
    return new Promise((resolve, reject) => this.#waiters.push({ resolve, reject }));
  }

  /** After the last event next() returned (and the skipped events right after it). */
  get position(): BinlogPosition {
    return this.#position;
  }

  /** What the buffer holds now. */
  get buffered(): { readonly events: number; readonly rows: number } {
    return { events: this.#events, rows: this.#weight };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#wake(new BinlogError(this.#site(), 'the binlog client is closed'));
    const stream = (this.#conn as unknown as { stream: Socket }).stream;
    const closed = new Promise<void>((resolve) => (stream.destroyed ? resolve() : stream.once('close', () => resolve())));
    this.#conn.destroy();
    stream.destroy();
    await closed;
  }

  #site(): { host: string; port: number; file?: string; pos?: number } {
    return this.#decoder.site;
  }

  #startDump(payload: Buffer): Promise<void> {
    const first = new Promise<void>((resolve, reject) => (this.#firstEvent = { resolve, reject }));
    this.#conn.on('error', (e) => this.#fail(e instanceof BinlogError ? e : new BinlogError(this.#site(), `connection: ${e.message}`, { cause: e })));
    const command = new BinlogDumpCommand(payload, {
      event: (raw) => this.#onRaw(raw),
      end: (err) =>
        this.#fail(err ? new BinlogServerError(this.#site(), err) : new BinlogError(this.#site(), 'the server ended the binlog dump (EOF)')),
    });
    this.#internals.addCommand(command);
    return first;
  }

  #onRaw(raw: Buffer): void {
    if (this.#closed || this.#error) return;
    if (this.#loadingSchema || this.#pendingRaw.length > 0) {
      this.#pendingRaw.push(raw);
      return;
    }
    this.#process(raw);
    this.#flow();
  }

  #process(raw: Buffer): void {
    let out: DecodeOutcome;
    try {
      out = this.#decoder.decode(raw);
    } catch (e) {
      this.#fail(e instanceof BinlogError ? e : new BinlogError(this.#site(), (e as Error).message, { cause: e }));
      return;
    }
    this.#firstEvent?.resolve();
    this.#firstEvent = undefined;
    if (out.kind === 'event') this.#push({ event: out.event, position: out.position, weight: out.event.type === 'rows' ? Math.max(1, out.event.rows.length) : 1 });
    else if (out.kind === 'advance') this.#advance(out.position);
    else if (out.kind === 'schema') this.#loadSchema(raw, out.db, out.table, out.refresh);
  }

  /** Loads a table's schema while the socket waits, then decodes the held-back events in order. */
  #loadSchema(raw: Buffer, db: string, table: string, refresh: boolean): void {
    this.#loadingSchema = true;
    this.#pendingRaw.unshift(raw);
    this.#flow();
    const load = refresh ? this.#o.schemas.refresh(db, table) : this.#o.schemas.get(db, table);
    load.then(
      () => {
        this.#loadingSchema = false;
        while (!this.#loadingSchema && !this.#error && !this.#closed && this.#pendingRaw.length > 0) this.#process(this.#pendingRaw.shift()!);
        this.#flow();
      },
      (e: Error) => {
        const problem = e instanceof TableSchemaError ? e.message : `cannot load the schema: ${e.message}`;
        this.#fail(new BinlogSchemaError(this.#site(), db, table, problem));
      },
    );
  }

  #push(item: Buffered): void {
    this.#queue.push(item);
    this.#weight += item.weight;
    this.#events++;
    this.#wake();
  }

  /** A skipped event's position: applied at once when nothing is buffered, else after the buffered events. */
  #advance(position: BinlogPosition): void {
    if (this.#head >= this.#queue.length) {
      this.#position = position;
      this.#wake();
      return;
    }
    const tail = this.#queue[this.#queue.length - 1]!;
    if ('marker' in tail) tail.marker = position;
    else this.#queue.push({ marker: position });
  }

  #compact(): void {
    if (this.#head === this.#queue.length) {
      this.#queue = [];
      this.#head = 0;
    } else if (this.#head > 4096 && this.#head * 2 > this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
  }

  /** Pauses the socket while the buffer is full or a schema loads; resumes below half full. */
  #flow(): void {
    if (this.#closed || this.#error) return;
    const hold = this.#loadingSchema || this.#weight >= this.#maxWeight;
    if (hold && !this.#paused) {
      this.#paused = true;
      this.#internals.pause();
    } else if (this.#paused && !this.#loadingSchema && this.#weight <= this.#maxWeight / 2 && !this.#resumeScheduled) {
      // Resuming replays the packets mysql2 held back, which decode and buffer synchronously:
      // not inside the consumer's next().
      this.#resumeScheduled = true;
      setImmediate(() => {
        this.#resumeScheduled = false;
        if (this.#closed || this.#error || !this.#paused) return;
        if (this.#loadingSchema || this.#weight > this.#maxWeight / 2) return;
        this.#paused = false;
        this.#internals.resume();
      });
    }
  }

  #fail(e: BinlogError): void {
    if (this.#error || this.#closed) return;
    this.#error = e;
    this.#firstEvent?.reject(e);
    this.#firstEvent = undefined;
    this.#wake(e);
    this.#conn.destroy();
  }

  /** Settles the available() waiters: resolved while there is news, rejected on error or close. */
  #wake(error?: Error): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) {
      if (error) w.reject(error);
      else w.resolve();
    }
  }
}

function connect(o: BinlogClientOptions): Promise<Connection> {
  return new Promise((resolve, reject) => {
    const conn = mysql.createConnection({ host: o.host, port: o.port, user: o.user, password: o.password, connectTimeout: o.connectTimeoutMs ?? 10_000 });
    // Until the dump starts, failures come back through the connect and query callbacks.
    conn.on('error', () => {});
    conn.connect((err) => {
      if (!err) return resolve(conn);
      conn.destroy();
      reject(new BinlogError(o, `cannot connect as '${o.user}': ${err.message}`, { cause: err }));
    });
  });
}
