import { request, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from '../log/logger.ts';
import { FramedSocket, peerAddress } from './framed-socket.ts';
import { HANDSHAKE_MAX_FRAME } from './handshake.ts';
import type { InternalTls } from './internal-tls.ts';
import { ConnectionRefusedError } from './refusal.ts';

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

/** Hands every RPC upgrade of `server` to `accept` (after internal TLS, when on); other upgrades are answered 400. */
export function acceptRpcUpgrades(server: Server, accept: (conn: FramedSocket, request: IncomingMessage) => void, o: { tls?: InternalTls | undefined; log?: Logger } = {}): void {
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
    const address = peerAddress(socket);
    if (head.length > 0) socket.unshift(head);
    if (!o.tls) return accept(new FramedSocket(socket, HANDSHAKE_MAX_FRAME, address), req);
    o.tls.accept(socket).then(
      (secure) => accept(new FramedSocket(secure, HANDSHAKE_MAX_FRAME, address), req),
      (e: Error) => o.log?.warn(new ConnectionRefusedError(address, 'tls', e.message, 'us').message, { peer: address, code: 'tls' }),
    );
  });
}

/** Opens an RPC connection to the JobManager at host:port, with internal TLS when given (the handshake is the caller's). */
export function dialRpc(host: string, port: number, timeoutMs = 10_000, tls?: InternalTls): Promise<FramedSocket> {
  const address = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  return new Promise((resolve, reject) => {
    const req = request({ host, port, path: RPC_PATH, headers: { Connection: 'Upgrade', Upgrade: RPC_PROTOCOL }, timeout: timeoutMs });
    req.on('upgrade', (_res, socket, head) => {
      socket.setNoDelay(true);
      socket.setTimeout(0);
      if (head.length > 0) socket.unshift(head);
      if (!tls) return resolve(new FramedSocket(socket, HANDSHAKE_MAX_FRAME, address));
      tls.connect(socket).then(
        (secure) => resolve(new FramedSocket(secure, HANDSHAKE_MAX_FRAME, address)),
        (e: Error) => reject(new ConnectionRefusedError(address, 'tls', e.message, 'peer')),
      );
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
