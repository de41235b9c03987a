/*
 * The bytes a pg connection receives, cut into protocol messages here before pg sees them, so
 * that a COPY's CopyData messages can go to their reader in runs, straight from the socket's
 * chunks. pg parses each message into an object with a Buffer of its own and hands it on through
 * two events: per row of a COPY that cost about as much as decoding the row (profile of
 * `npm run bench -- cdc --dialect postgres`).
 */

/** Where CopyData messages go while a COPY of ours runs: `buf[start, end)` holds whole messages, headers included. */
export type CopyDataSink = (buf: Buffer, start: number, end: number) => void;

const COPY_DATA = 0x64; // 'd'
const HEADER = 5; // type byte, int32 length (which counts itself)

/** What the tap needs of a pg client: its connection's socket. */
interface PgClientInternals {
  readonly connection?: { readonly stream?: NodeJS.EventEmitter };
}

/**
 * Sits between a pg connection's socket and pg's parser. Without a sink every whole message goes
 * to pg as it came; with one, CopyData messages go to the sink and the others to pg in their
 * order. pg is only ever given whole messages (a message split over two chunks is held here until
 * its end comes), so it never holds part of one when a sink is set or cleared.
 */
export class CopyDataTap {
  readonly #forward: (chunk: Buffer) => void;
  #sink: CopyDataSink | undefined;
  /**
   * The start of a message cut off by the end of a chunk, in `#carry[0, #carried)`, with room for
   * the rest: a message over many chunks (a row with a value of megabytes) is copied about once,
   * not once per chunk as concatenating the carry with each chunk did.
   */
  #carry: Buffer | undefined;
  #carried = 0;

  private constructor(forward: (chunk: Buffer) => void) {
    this.#forward = forward;
  }

  /**
   * Puts a tap in front of pg's parser on a connected client; undefined (pg reads as ever) when
   * the client is not laid out as this pg version's is (one 'data' listener on its socket).
   */
  static install(client: object): CopyDataTap | undefined {
    const stream = (client as PgClientInternals).connection?.stream;
    const listeners = stream?.listeners('data');
    if (!stream || listeners?.length !== 1) return undefined;
    const pgListener = listeners[0] as (chunk: Buffer) => void;
    const tap = new CopyDataTap(pgListener);
    stream.off('data', pgListener);
    stream.on('data', (chunk: Buffer) => tap.#take(chunk));
    return tap;
  }

  /** CopyData messages go to `sink` until `close()`. */
  open(sink: CopyDataSink): void {
    this.#sink = sink;
  }

  close(): void {
    this.#sink = undefined;
  }

  #take(chunk: Buffer): void {
    const buf = this.#carry ? this.#append(chunk) : chunk;
    if (!buf) return;
    const end = buf.length;
    let at = 0;
    while (at < end) {
      const sink = this.#sink;
      const next = sink ? copyDataRun(buf, at, end) : at;
      if (next > at) {
        sink!(buf, at, next);
      } else {
        // pg's messages: all whole ones at once without a sink, else the one up to the next CopyData.
        const upTo = sink ? messageEnd(buf, at, end) : wholeMessages(buf, at, end);
        if (upTo === at) break;
        this.#forward(buf.subarray(at, upTo));
        at = upTo;
        continue;
      }
      at = next;
    }
    if (at < end) this.#keep(buf, at, end);
  }

  /** Starts a carry with `buf[at, end)`, in a buffer of its own (slices of `buf` may be held by pg or the sink). */
  #keep(buf: Buffer, at: number, end: number): void {
    const known = end - at >= HEADER ? 1 + buf.readUInt32BE(at + 1) : 0;
    this.#carry = Buffer.allocUnsafe(Math.max(known, 2 * (end - at), 1024));
    this.#carried = buf.copy(this.#carry, 0, at, end);
  }

  /** The carry with `chunk` after it, once its first message is whole (undefined until then: it is kept). */
  #append(chunk: Buffer): Buffer | undefined {
    let carry = this.#carry!;
    const need = this.#carried + chunk.length;
    if (need > carry.length) {
      const grown = Buffer.allocUnsafe(Math.max(need, 2 * carry.length));
      carry.copy(grown, 0, 0, this.#carried);
      carry = this.#carry = grown;
    }
    this.#carried += chunk.copy(carry, this.#carried);
    const buf = carry.subarray(0, this.#carried);
    if (messageEnd(buf, 0, buf.length) === 0) return undefined;
    this.#carry = undefined;
    this.#carried = 0;
    return buf;
  }
}

/** The end of the one whole message at `at` (`at` when it is cut off). */
function messageEnd(buf: Buffer, at: number, end: number): number {
  if (at + HEADER > end) return at;
  const next = at + 1 + buf.readUInt32BE(at + 1);
  return next <= end ? next : at;
}

/** The end of the whole messages from `at` on. */
function wholeMessages(buf: Buffer, at: number, end: number): number {
  for (let next = messageEnd(buf, at, end); next > at; next = messageEnd(buf, at, end)) at = next;
  return at;
}

/** The end of the whole CopyData messages from `at` on. */
function copyDataRun(buf: Buffer, at: number, end: number): number {
  while (at + HEADER <= end && buf[at] === COPY_DATA) {
    const next = at + 1 + buf.readUInt32BE(at + 1);
    if (next > end) break;
    at = next;
  }
  return at;
}
