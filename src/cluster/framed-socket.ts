import type { Duplex } from 'node:stream';
import { FrameReader, frameHeader } from './frame-reader.ts';

/** A framed connection's peer address as host:port (IPv6 in brackets). */
export function peerAddress(socket: Duplex): string {
  const s = socket as Duplex & { remoteAddress?: string; remotePort?: number };
  const host = s.remoteAddress ?? 'unknown';
  return `${host.includes(':') ? `[${host}]` : host}:${s.remotePort ?? 0}`;
}

/**
 * A TCP (or TLS) socket carrying frames both ways. Frames are handed to one handler at a time;
 * the handler may be replaced (the handshake reads the first frame, the protocol the rest), and
 * frames that arrived meanwhile wait for it.
 */
export class FramedSocket {
  readonly socket: Duplex;
  readonly address: string;
  readonly #reader: FrameReader;
  #onFrame: ((payload: Buffer) => void) | undefined;
  readonly #waiting: Buffer[] = [];
  #closeHandlers: Array<(error: Error | undefined) => void> = [];
  #closed = false;
  #error: Error | undefined;

  constructor(socket: Duplex, maxFrame: number, address = peerAddress(socket)) {
    this.socket = socket;
    this.address = address;
    this.#reader = new FrameReader(maxFrame);
    socket.on('data', (chunk: Buffer) => {
      if (this.#closed) return;
      try {
        this.#reader.push(chunk, (f) => this.#deliver(f));
      } catch (e) {
        this.destroy(e as Error);
      }
    });
    socket.on('error', (e) => {
      this.#error ??= e;
    });
    socket.on('close', () => this.#ended());
  }

  set maxFrame(max: number) {
    this.#reader.maxFrame = max;
  }

  get closed(): boolean {
    return this.#closed;
  }

  onFrame(handler: ((payload: Buffer) => void) | undefined): void {
    this.#onFrame = handler;
    while (handler && this.#onFrame === handler && this.#waiting.length > 0 && !this.#closed) handler(this.#waiting.shift()!);
  }

  /** Called once, when the connection has ended (with the error that ended it, if any). */
  onClose(handler: (error: Error | undefined) => void): void {
    if (this.#closed) queueMicrotask(() => handler(this.#error));
    else this.#closeHandlers.push(handler);
  }

  /** Writes one frame; its parts are written back to back (no copy into one buffer). */
  write(...parts: Uint8Array[]): boolean {
    if (this.#closed) return false;
    let length = 0;
    for (const p of parts) length += p.byteLength;
    const s = this.socket;
    s.cork();
    s.write(frameHeader(length));
    let ok = true;
    for (const p of parts) ok = s.write(p);
    process.nextTick(() => s.uncork());
    return ok;
  }

  /** Ends the connection after what was written; `error`: abruptly, as the reason it ended. */
  destroy(error?: Error): void {
    if (error) this.#error ??= error;
    if (error) this.socket.destroy();
    else this.socket.end();
    // A peer that does not close its side must not keep the socket forever.
    setTimeout(() => this.socket.destroy(), 2000).unref();
  }

  #deliver(payload: Buffer): void {
    const handler = this.#onFrame;
    if (handler && this.#waiting.length === 0) handler(payload);
    else this.#waiting.push(payload);
  }

  #ended(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const h of this.#closeHandlers.splice(0)) h(this.#error);
  }
}
