/**
 * Why a connection to a weir process was refused, as codes with the sentence each stands for.
 * The refusing side logs the code with the peer's address; the refused side gets both, so a
 * TaskManager or client can say what to fix.
 */
export const REFUSALS = {
  'garbage': 'sent bytes that are not a weir handshake',
  'handshake-timeout': 'sent no handshake in time',
  'protocol-version': 'speaks another protocol version',
  'weir-version': 'runs another weir version (every process of a cluster runs the same one)',
  'bad-token': 'did not present the cluster token (security.cluster.token)',
  'wrong-role': 'connected to the wrong kind of port',
  'duplicate-id': 'has the id of a TaskManager that is registered and alive',
  'tls': 'did not complete internal TLS with a certificate the cluster trusts (security.ssl.internal.*)',
} as const;

export type RefusalCode = keyof typeof REFUSALS;

/** A peer refused this process's connection, or this process refused a peer's. */
export class ConnectionRefusedError extends Error {
  /** host:port of the peer. */
  readonly address: string;
  readonly code: RefusalCode;
  readonly detail: string;

  constructor(address: string, code: RefusalCode, detail: string, refusedBy: 'peer' | 'us') {
    super(refusedBy === 'peer' ? `${address} refused the connection (${code}): ${detail}` : `refused the connection from ${address} (${code}): ${detail}`);
    this.name = 'ConnectionRefusedError';
    this.address = address;
    this.code = code;
    this.detail = detail;
  }
}
