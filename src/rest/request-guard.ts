import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Who may call the REST API. Without rest.token the server listens on loopback only, but a web page
 * elsewhere can still reach it through the browser: by DNS rebinding (its own host name resolving
 * to 127.0.0.1, which the browser then treats as the page's origin) or by a cross-site form or
 * fetch. So without a token only requests addressed to a loopback name are answered, and changes
 * only from pages of this server itself. With a token, changes need it, and reads too when
 * `tokenRequiredForReads` says so; the dashboard's own files never do (they hold no job data, and
 * the page must load to ask for the token).
 */
export interface RequestGuardOptions {
  readonly token: string | null;
  readonly tokenRequiredForReads: boolean;
}

export interface Refusal {
  readonly status: 400 | 401 | 403;
  readonly message: string;
}

export interface GuardedRequest {
  readonly method: string;
  /** The path and query, as in the request line. */
  readonly url: string;
  readonly headers: { readonly host?: string | undefined; readonly origin?: string | undefined; readonly authorization?: string | undefined };
  /** The headers as they came, name and value alternating: Node keeps only the first of several Host headers in `headers`. */
  readonly raw?: { readonly rawHeaders: readonly string[] };
}

const LOOPBACK_HOST = /^(?:127\.0\.0\.1|localhost|\[::1\])(?::\d{1,5})?$/i;
const READS = new Set(['GET', 'HEAD']);

export function requestGuard(o: RequestGuardOptions): (req: GuardedRequest) => Refusal | undefined {
  const expected = o.token === null ? undefined : digest(`Bearer ${o.token}`);
  return (req) => {
    const ambiguous = severalHosts(req);
    if (ambiguous) return ambiguous;
    if (expected === undefined) return loopbackOnly(req);
    const read = READS.has(req.method);
    if (read && (!o.tokenRequiredForReads || isDashboardFile(req.url))) return undefined;
    const given = req.headers.authorization;
    if (given !== undefined && timingSafeEqual(digest(given), expected)) return undefined;
    const why = read ? 'reads need it too here (rest.token-required-for-reads)' : 'it changes the job';
    return { status: 401, message: `${req.method} ${path(req.url)} needs Authorization: Bearer <rest.token>: ${why}` };
  };
}

/**
 * Node answers by the first of several Host headers, while a proxy or cache before it may go by
 * another: the loopback rule would then be checked against a name the request was not routed by
 * (request smuggling). HTTP/1.1 allows exactly one (RFC 9112 §3.2), so more are refused outright.
 */
function severalHosts(req: GuardedRequest): Refusal | undefined {
  const raw = req.raw?.rawHeaders ?? [];
  const hosts: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) if (raw[i]!.toLowerCase() === 'host') hosts.push(raw[i + 1]!);
  if (hosts.length <= 1) return undefined;
  return {
    status: 400,
    message: `${req.method} ${path(req.url)} refused: it carries ${hosts.length} Host headers (${hosts.map((h) => `'${h}'`).join(', ')}); HTTP/1.1 allows exactly one, and which one it was addressed to is ambiguous`,
  };
}

function loopbackOnly(req: GuardedRequest): Refusal | undefined {
  const host = req.headers.host;
  if (host === undefined || !LOOPBACK_HOST.test(host)) {
    const given = host === undefined ? 'a request without a Host header' : `Host '${host}'`;
    return {
      status: 403,
      message:
        `${given} refused: without rest.token this JobManager answers only requests addressed to 127.0.0.1, localhost or [::1] ` +
        `(with or without the port), so that a web page on another host name cannot reach it through a browser (DNS rebinding); setting rest.token lifts this rule`,
    };
  }
  const origin = req.headers.origin;
  if (READS.has(req.method) || origin === undefined || sameOrigin(origin, host)) return undefined;
  return {
    status: 403,
    message:
      `${req.method} ${path(req.url)} from Origin '${origin}' refused: without rest.token, changes are taken only from pages of this JobManager ` +
      `(Origin http://${host}), not from other sites (a cross-site request); setting rest.token lifts this rule`,
  };
}

/** Whether the Origin is the server's own as the browser addressed it (Host), on a loopback name. */
function sameOrigin(origin: string, host: string): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false; // 'null' (sandboxed frames, file: pages) and anything else that is not a URL
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK_HOST.test(url.host) && url.host.toLowerCase() === host.toLowerCase();
}

/** GET / and GET /web/<file>: the dashboard's HTML, scripts and styles. */
function isDashboardFile(url: string): boolean {
  const p = path(url);
  return p === '/' || p.startsWith('/web/');
}

function path(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

/** Fixed-length digests, so that timingSafeEqual can compare tokens of any length. */
function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
