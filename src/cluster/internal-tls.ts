import { readFileSync } from 'node:fs';
import { connect as tlsConnect, createSecureContext, createServer as createTlsServer, type SecureContext, type TLSSocket } from 'node:tls';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { WeirConfig } from '../config/configuration.ts';
import { ConfigError } from '../config/config-error.ts';

/**
 * TLS on the cluster's internal connections (Flink's security.ssl.internal.*): mutual, every
 * process presenting its certificate and accepting only peers signed by the cluster's authority.
 * Host names are not checked (processes reach each other by addresses that certificates rarely
 * name); the authority is the trust. The cluster token is still sent inside.
 */
interface Pem {
  readonly key: Buffer;
  readonly cert: Buffer;
  readonly ca: Buffer;
}

export class InternalTls {
  readonly #pem: Pem;
  readonly #context: SecureContext;

  private constructor(pem: Pem) {
    this.#pem = pem;
    this.#context = createSecureContext(pem);
  }

  /** From the configuration, or undefined when internal TLS is off. */
  static fromConfig(c: WeirConfig): InternalTls | undefined {
    if (!c['security.ssl.internal.enabled']) return undefined;
    const read = (key: 'security.ssl.internal.key' | 'security.ssl.internal.cert' | 'security.ssl.internal.trust') => {
      try {
        return readFileSync(c[key]!);
      } catch (e) {
        throw new ConfigError(key, c[key], `cannot read it: ${(e as Error).message}`);
      }
    };
    try {
      return new InternalTls({ key: read('security.ssl.internal.key'), cert: read('security.ssl.internal.cert'), ca: read('security.ssl.internal.trust') });
    } catch (e) {
      if (e instanceof ConfigError) throw e;
      throw new ConfigError('security.ssl.internal.key', c['security.ssl.internal.key'], `the key, certificate and authority do not make a TLS context: ${(e as Error).message}`);
    }
  }

  /**
   * The accepting side of a connection (an upgraded RPC socket, a data connection): resolves once
   * the peer's certificate checked out. A TLS server of its own takes the socket, because only a
   * server verifies a client's certificate (a bare server-side TLSSocket does not).
   */
  accept(socket: Duplex): Promise<TLSSocket> {
    return new Promise((resolve, reject) => {
      const server = createTlsServer({ ...this.#pem, requestCert: true, rejectUnauthorized: true });
      server.once('secureConnection', (tls: TLSSocket) => resolve(tls));
      server.once('tlsClientError', (e: Error) => {
        socket.destroy();
        reject(new Error(`TLS: ${firstLine(e.message)}`, { cause: e }));
      });
      server.emit('connection', socket);
    });
  }

  /**
   * The connecting side, over an open socket. With TLS 1.3 the server's verdict on this side's
   * certificate comes after this resolves, as an alert that ends the connection (see isTlsAlert).
   */
  connect(socket: Duplex): Promise<TLSSocket> {
    return new Promise((resolve, reject) => {
      const tls = tlsConnect({ socket: socket as Socket, secureContext: this.#context, rejectUnauthorized: true, checkServerIdentity: () => undefined });
      const fail = (e: Error) => {
        tls.destroy();
        reject(new Error(`TLS: ${firstLine(e.message)}`, { cause: e }));
      };
      tls.once('error', fail);
      tls.once('secureConnect', () => {
        tls.off('error', fail);
        resolve(tls);
      });
    });
  }
}

/** The peer ended a TLS connection with an alert: it refused this side's certificate (or spoke no TLS). */
export function isTlsAlert(e: Error | undefined): boolean {
  return typeof (e as NodeJS.ErrnoException | undefined)?.code === 'string' && (e as NodeJS.ErrnoException).code!.startsWith('ERR_SSL_');
}

function firstLine(s: string): string {
  return s.split('\n')[0]!.replace(/^[0-9A-F]+:error:[0-9A-F]+:SSL routines:/, '').trim();
}
