/** What pg hands a submittable: its connection, which writes protocol messages to the socket. */
export interface CopyWire {
  query(text: string): void;
  sendCopyFromChunk(chunk: Uint8Array): void;
  endCopyFrom(): void;
  readonly stream: { readonly writableLength: number; once(event: 'drain', listener: () => void): unknown };
}

/** A COPY's side of the connection in one state: before the server accepts it, open, or ended. */
interface CopyState {
  write(chunk: Uint8Array): void;
  end(): void;
  /** Bytes written and not yet handed to the kernel. */
  backlog(): number;
}

/**
 * One `COPY … FROM STDIN` kept open while its data comes, so a transaction's rows stream to the
 * server without a round trip per batch (the server parses rows while the next are encoded).
 * Chunks written before the server accepts the copy wait in memory; later ones go straight to
 * the socket. `end()` sends CopyDone; `finished` settles with the server's answer. After the
 * server refused the copy, later chunks are dropped (the server would ignore them anyway).
 */
export class CopyIn {
  readonly text: string;
  readonly finished: Promise<void>;
  #state: CopyState;
  #settle!: { resolve: () => void; reject: (e: unknown) => void };
  #waiters: Array<() => void> = [];
  #watchingDrain = false;
  #wire: CopyWire | undefined;

  /** A COPY whose data is all there: written and ended at once. */
  static of(text: string, data: Uint8Array): CopyIn {
    const copy = new CopyIn(text);
    copy.write(data);
    copy.end();
    return copy;
  }

  constructor(text: string) {
    this.text = text;
    this.finished = new Promise((resolve, reject) => (this.#settle = { resolve, reject }));
    this.#state = new Waiting();
  }

  write(chunk: Uint8Array): void {
    this.#state.write(chunk);
  }

  end(): void {
    this.#state.end();
  }

  /** Undefined while fewer than `highWater` bytes wait; else a promise for when they fall below it. */
  drained(highWater: number): Promise<void> | undefined {
    if (this.#state.backlog() < highWater) return undefined;
    return new Promise((resolve) => {
      this.#waiters.push(resolve);
      this.#watchDrain();
    });
  }

  /** The object pg's client.query takes: pg calls it back with its connection and the server's messages. */
  submittable(): object {
    return {
      submit: (wire: CopyWire) => wire.query(this.text),
      handleCopyInResponse: (wire: CopyWire) => this.#open(wire),
      handleCommandComplete: () => {},
      // pg forgets the active query when the server reports an error (no ReadyForQuery follows for it).
      handleError: (e: Error) => this.#fail(e),
      handleReadyForQuery: () => this.#done(),
    };
  }

  #open(wire: CopyWire): void {
    const waiting = this.#state as Waiting;
    this.#wire = wire;
    this.#state = new Open(wire);
    for (const chunk of waiting.chunks) this.#state.write(chunk);
    if (waiting.ended) this.#state.end();
    this.#wake();
  }

  #fail(e: Error): void {
    this.#state = new Settled();
    this.#wake();
    this.#settle.reject(e);
  }

  #done(): void {
    this.#state = new Settled();
    this.#wake();
    this.#settle.resolve();
  }

  /** The socket says when its buffer has emptied; one listener at a time. */
  #watchDrain(): void {
    if (this.#watchingDrain || !this.#wire) return;
    this.#watchingDrain = true;
    this.#wire.stream.once('drain', () => {
      this.#watchingDrain = false;
      this.#wake();
    });
  }

  #wake(): void {
    for (const wake of this.#waiters.splice(0)) wake();
  }
}

class Waiting implements CopyState {
  readonly chunks: Uint8Array[] = [];
  ended = false;
  #bytes = 0;

  write(chunk: Uint8Array): void {
    this.chunks.push(chunk);
    this.#bytes += chunk.length;
  }

  end(): void {
    this.ended = true;
  }

  backlog(): number {
    return this.#bytes;
  }
}

/** CopyData messages of at most this size: the server's buffer takes them whole. */
const MAX_MESSAGE = 256 * 1024;

class Open implements CopyState {
  readonly #wire: CopyWire;

  constructor(wire: CopyWire) {
    this.#wire = wire;
  }

  write(chunk: Uint8Array): void {
    for (let at = 0; at < chunk.length; at += MAX_MESSAGE) this.#wire.sendCopyFromChunk(at === 0 && chunk.length <= MAX_MESSAGE ? chunk : chunk.subarray(at, at + MAX_MESSAGE));
  }

  end(): void {
    this.#wire.endCopyFrom();
  }

  backlog(): number {
    return this.#wire.stream.writableLength;
  }
}

class Settled implements CopyState {
  write(): void {}
  end(): void {}
  backlog(): number {
    return 0;
  }
}
