import { deserialize, serialize } from 'node:v8';
import type { RpcMessage } from '../rpc/control-protocol.ts';
import type { FramedSocket } from './framed-socket.ts';
import { OPEN_MAX_FRAME } from './handshake.ts';

/** An RPC message that could not be decoded: the peer is broken or not weir. */
export class RpcDecodeError extends Error {
  readonly address: string;

  constructor(address: string, cause: unknown) {
    super(`an RPC message from ${address} could not be decoded: ${(cause as Error).message}`, { cause });
    this.name = 'RpcDecodeError';
    this.address = address;
  }
}

/**
 * The RPC union over a framed socket whose handshake is done. Messages are written with V8's
 * serializer, the structured clone that worker threads' messages already go through, so a
 * TaskManager in another process receives exactly what one in a worker thread does (Maps, Sets,
 * BigInts, typed arrays and Dates in splits and operator state included).
 */
export class RpcConnection {
  readonly address: string;
  readonly #conn: FramedSocket;

  constructor(conn: FramedSocket) {
    this.#conn = conn;
    this.address = conn.address;
    conn.maxFrame = OPEN_MAX_FRAME;
  }

  get closed(): boolean {
    return this.#conn.closed;
  }

  send(message: RpcMessage): void {
    this.#conn.write(serialize(message));
  }

  /** Messages in order; one that cannot be decoded ends the connection (nothing of it is acted on). */
  onMessage(handler: (message: RpcMessage) => void): void {
    this.#conn.onFrame((payload) => {
      let message: RpcMessage;
      try {
        message = deserialize(payload) as RpcMessage;
      } catch (e) {
        this.#conn.destroy(new RpcDecodeError(this.address, e));
        return;
      }
      handler(message);
    });
  }

  onClose(handler: (error: Error | undefined) => void): void {
    this.#conn.onClose(handler);
  }

  close(error?: Error): void {
    this.#conn.destroy(error);
  }
}
