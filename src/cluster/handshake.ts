import { createHash, timingSafeEqual } from 'node:crypto';
import { PACKAGE_VERSION } from '../cli/package-version.ts';
import type { Logger } from '../log/logger.ts';
import { CONTROL_PROTOCOL_VERSION } from '../rpc/control-protocol.ts';
import type { FramedSocket } from './framed-socket.ts';
import { ConnectionRefusedError, REFUSALS, type RefusalCode } from './refusal.ts';
import { isTlsAlert } from './internal-tls.ts';

/**
 * The first exchange on every internal connection (RPC to the JobManager, data between
 * TaskManagers): the connecting side says who it is, which protocol and weir version it speaks
 * and the cluster token; the accepting side answers welcome or refused. It is JSON, so that bytes
 * from anything else are told apart before anything is decoded as the protocol's own. The states:
 *
 *   accepting: awaiting-hello --hello ok--> open | --anything else--> refused (logged, closed)
 *   connecting: awaiting-welcome --welcome--> open | --refused--> ConnectionRefusedError
 *
 * The protocol version said is CONTROL_PROTOCOL_VERSION (rpc/control-protocol.ts).
 */

/** What may connect where: TaskManagers to the JobManager's RPC, TaskManagers to each other's data port. */
export type PeerRole = 'taskmanager' | 'data';

export interface Hello {
  readonly type: 'hello';
  readonly protocol: number;
  readonly weir: string;
  readonly role: PeerRole;
  /** The connecting process's id (a TaskManager's resource id). */
  readonly id: string;
  readonly token: string | null;
}

export interface Welcome {
  readonly type: 'welcome';
  readonly protocol: number;
  readonly weir: string;
  readonly id: string;
}

interface Refused {
  readonly type: 'refused';
  readonly code: RefusalCode;
  readonly reason: string;
}

/** A handshake is a few hundred bytes; more before it is done is not a weir peer. */
export const HANDSHAKE_MAX_FRAME = 4096;
/** After the handshake: the largest RPC message (a deploy carries the state handles of every key group of its subtasks). */
export const OPEN_MAX_FRAME = 256 * 1024 * 1024;
const HANDSHAKE_TIMEOUT_MS = 10_000;

export interface AcceptOptions {
  readonly role: PeerRole;
  readonly token: string | null;
  readonly id: string;
  readonly log: Logger;
  /** A further check of a well-formed hello (e.g. a TaskManager id already registered). */
  readonly admit?: (hello: Hello) => { code: RefusalCode; reason: string } | undefined;
  readonly timeoutMs?: number;
}

/**
 * The accepting side: resolves with the peer's hello once it was welcomed; undefined when it was
 * refused (logged with its address, answered with the reason, closed: nothing it sent is acted on).
 */
export function acceptHandshake(conn: FramedSocket, o: AcceptOptions): Promise<Hello | undefined> {
  conn.maxFrame = HANDSHAKE_MAX_FRAME;
  return new Promise((resolve) => {
    let settled = false;
    const refuse = (code: RefusalCode, detail: string) => {
      settled = true;
      clearTimeout(timer);
      conn.onFrame(undefined);
      o.log.warn(new ConnectionRefusedError(conn.address, code, detail, 'us').message, { peer: conn.address, code });
      if (code !== 'garbage') conn.write(Buffer.from(JSON.stringify({ type: 'refused', code, reason: `${REFUSALS[code]}: ${detail}` } satisfies Refused)));
      conn.destroy();
      resolve(undefined);
    };
    const timer = setTimeout(() => refuse('handshake-timeout', `nothing within ${(o.timeoutMs ?? HANDSHAKE_TIMEOUT_MS) / 1000} s`), o.timeoutMs ?? HANDSHAKE_TIMEOUT_MS);
    timer.unref();
    conn.onClose((e) => {
      clearTimeout(timer);
      if (settled) return;
      settled = true;
      resolve(undefined);
      // Ended while it said nothing: a port probe, or garbage the framing rejected.
      if (e) o.log.warn(new ConnectionRefusedError(conn.address, 'garbage', e.message, 'us').message, { peer: conn.address, code: 'garbage' });
    });
    conn.onFrame((payload) => {
      const hello = parseHello(payload);
      if (!hello) return refuse('garbage', `a first frame of ${payload.length} bytes that is not a hello`);
      if (hello.protocol !== CONTROL_PROTOCOL_VERSION) return refuse('protocol-version', `it speaks protocol ${hello.protocol}, this process ${CONTROL_PROTOCOL_VERSION}`);
      if (hello.weir !== PACKAGE_VERSION) return refuse('weir-version', `it runs weir ${hello.weir}, this process ${PACKAGE_VERSION}`);
      if (!tokensMatch(o.token, hello.token)) return refuse('bad-token', hello.token === null ? 'it presented none' : 'it presented another one');
      if (hello.role !== o.role) return refuse('wrong-role', `it connected as ${hello.role} to the ${o.role} port`);
      const refusal = o.admit?.(hello);
      if (refusal) return refuse(refusal.code, refusal.reason);
      settled = true;
      clearTimeout(timer);
      conn.onFrame(undefined);
      // Frames right behind the hello are the protocol's: they may be large.
      conn.maxFrame = OPEN_MAX_FRAME;
      conn.write(Buffer.from(JSON.stringify({ type: 'welcome', protocol: CONTROL_PROTOCOL_VERSION, weir: PACKAGE_VERSION, id: o.id } satisfies Welcome)));
      resolve(hello);
    });
  });
}

export interface GreetOptions {
  readonly role: PeerRole;
  readonly token: string | null;
  readonly id: string;
  readonly timeoutMs?: number;
}

/** The connecting side: resolves with the welcome, rejects with ConnectionRefusedError or the connection's end. */
export function greetHandshake(conn: FramedSocket, o: GreetOptions): Promise<Welcome> {
  conn.maxFrame = HANDSHAKE_MAX_FRAME;
  conn.write(Buffer.from(JSON.stringify({ type: 'hello', protocol: CONTROL_PROTOCOL_VERSION, weir: PACKAGE_VERSION, role: o.role, id: o.id, token: o.token } satisfies Hello)));
  return new Promise((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(() => {
      settled = true;
      conn.destroy(new Error('no answer to the handshake'));
      reject(new Error(`${conn.address} did not answer the handshake within ${(o.timeoutMs ?? HANDSHAKE_TIMEOUT_MS) / 1000} s`));
    }, o.timeoutMs ?? HANDSHAKE_TIMEOUT_MS);
    timer.unref();
    conn.onClose((e) => {
      clearTimeout(timer);
      if (settled) return;
      settled = true;
      // Internal TLS: the peer refused this side's certificate with an alert.
      if (isTlsAlert(e)) return reject(new ConnectionRefusedError(conn.address, 'tls', e!.message.split('\n')[0]!, 'peer'));
      reject(new Error(`${conn.address} closed the connection during the handshake${e ? `: ${e.message}` : ''}`));
    });
    conn.onFrame((payload) => {
      settled = true;
      clearTimeout(timer);
      conn.onFrame(undefined);
      let answer: Partial<Welcome | Refused>;
      try {
        answer = JSON.parse(payload.toString('utf8')) as Partial<Welcome | Refused>;
      } catch {
        answer = {};
      }
      if (answer.type === 'welcome') {
        conn.maxFrame = OPEN_MAX_FRAME;
        return resolve(answer as Welcome);
      }
      conn.destroy();
      if (answer.type === 'refused' && typeof answer.code === 'string' && answer.code in REFUSALS) {
        return reject(new ConnectionRefusedError(conn.address, answer.code as RefusalCode, String((answer as Refused).reason), 'peer'));
      }
      reject(new Error(`${conn.address} answered the handshake with something that is not weir's`));
    });
  });
}

function parseHello(payload: Buffer): Hello | undefined {
  let v: unknown;
  try {
    v = JSON.parse(payload.toString('utf8'));
  } catch {
    return undefined;
  }
  const h = v as Partial<Hello>;
  if (typeof v !== 'object' || v === null || h.type !== 'hello') return undefined;
  if (typeof h.protocol !== 'number' || typeof h.weir !== 'string' || typeof h.id !== 'string' || (h.role !== 'taskmanager' && h.role !== 'data')) return undefined;
  if (h.token !== null && typeof h.token !== 'string') return undefined;
  return h as Hello;
}

/** Compares digests, so the time taken says nothing about how much of the token was right. */
function tokensMatch(expected: string | null, given: string | null): boolean {
  if (expected === null) return true;
  if (given === null) return false;
  const d = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(d(expected), d(given));
}
