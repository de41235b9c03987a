import { request, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { FramedSocket, peerAddress } from './framed-socket.ts';
import { HANDSHAKE_MAX_FRAME } from './handshake.ts';

/**
 * RPC shares the JobManager's one address with REST, the dashboard and bundle downloads: a
 * TaskManager asks for `GET /rpc` with `Upgrade: weir-rpc` (as a WebSocket client would for its
 * protocol), the server answers 101, and from then on the connection carries frames.
 */
export const RPC_PATH = '/rpc';
export const RPC_PROTOCOL = 'weir-rpc';

/** A JobManager that did not answer, or answered as something else than a weir JobManager. */
export class JobManagerUnreachableError extends Error {
  readonly address: string;

  constructor(address: string, detail: string, cause?: unknown) {
    super(`no weir JobManager answers at ${address}: ${detail}`, cause === undefined ? undefined : { cause });
    this.name = 'JobManagerUnreachableError';
    this.address = address;
  }
}

/** Hands every RPC upgrade of `server` to `accept`; other upgrades are answered 400. */
export function acceptRpcUpgrades(server: Server, accept: (conn: FramedSocket, request: IncomingMessage) => void): void {
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== RPC_PATH && path !== `/v1${RPC_PATH}`) {
      socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
      return;
    }
    if ((req.headers.upgrade ?? '').toLowerCase() !== RPC_PROTOCOL) {
      socket.end(`HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\nupgrade to ${RPC_PROTOCOL} only\r\n`);
      return;
    }
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: ${RPC_PROTOCOL}\r\nConnection: Upgrade\r\n\r\n`);
    (socket as Duplex & { setNoDelay?: (b: boolean) => void }).setNoDelay?.(true);
    const conn = new FramedSocket(socket, HANDSHAKE_MAX_FRAME, peerAddress(socket));
    if (head.length > 0) socket.unshift(head);
    accept(conn, req);
  });
}

/** Opens an RPC connection to the JobManager at host:port (the handshake is the caller's). */
export function dialRpc(host: string, port: number, timeoutMs = 10_000): Promise<FramedSocket> {
  const address = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  return new Promise((resolve, reject) => {
    const req = request({ host, port, path: RPC_PATH, headers: { Connection: 'Upgrade', Upgrade: RPC_PROTOCOL }, timeout: timeoutMs });
    req.on('upgrade', (_res, socket, head) => {
      socket.setNoDelay(true);
      socket.setTimeout(0);
      const conn = new FramedSocket(socket, HANDSHAKE_MAX_FRAME, address);
      if (head.length > 0) socket.unshift(head);
      resolve(conn);
    });
    req.on('response', (res) => {
      res.resume();
      reject(new JobManagerUnreachableError(address, `it answered HTTP ${res.statusCode} to an RPC upgrade (is it a weir jobmanager, not a weir run?)`));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)));
    req.on('error', (e: NodeJS.ErrnoException) => reject(new JobManagerUnreachableError(address, e.code ?? e.message, e)));
    req.end();
  });
}
