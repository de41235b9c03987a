import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from '../log/logger.ts';

/** Marks a request a standby forwarded, so that two standbys that each think the other leads do not forward it in a loop. */
export const FORWARDED_HEADER = 'x-weir-forwarded-by';

/** Hop-by-hop headers and those fetch sets itself. */
const NOT_FORWARDED = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'content-length', 'proxy-connection', 'te', 'trailer']);

export interface LeaderProxyOptions {
  /** The leader's REST URL while this JobManager is a standby and a leader is known; otherwise undefined (answer here). */
  readonly leader: () => string | undefined;
  /** This JobManager's REST URL (named in the forwarded header). */
  readonly self: () => string;
  readonly log: Logger;
}

/**
 * A standby JobManager's REST API answers for the leader (as Flink's standby web endpoints do):
 * every request is forwarded to the leader's REST URL as it came, body and token included, and the
 * leader's answer is sent back, so a client may talk to any JobManager. Returns whether it
 * answered the request.
 */
export function leaderProxy(o: LeaderProxyOptions): (req: FastifyRequest, reply: FastifyReply) => Promise<boolean> {
  return async (req, reply) => {
    const leader = o.leader();
    if (!leader || leader === o.self() || req.headers[FORWARDED_HEADER] !== undefined) return false;
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) {
      if (v === undefined || NOT_FORWARDED.has(k)) continue;
      headers.set(k, Array.isArray(v) ? v.join(', ') : v);
    }
    headers.set(FORWARDED_HEADER, o.self());
    const chunks: Buffer[] = [];
    if (req.method !== 'GET' && req.method !== 'HEAD') for await (const c of req.raw) chunks.push(c as Buffer);
    let res: Response;
    try {
      res = await fetch(`${leader}${req.url}`, { method: req.method, headers, redirect: 'manual', ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}) });
    } catch (e) {
      o.log.warn(`cannot forward ${req.method} ${req.url} to the leader at ${leader}: ${(e as Error).message}`);
      await reply.code(502).send({ errors: [`this JobManager is a standby and the leader at ${leader} did not answer: ${(e as Error).message}`] });
      return true;
    }
    const body = Buffer.from(await res.arrayBuffer());
    reply.code(res.status);
    res.headers.forEach((v, k) => {
      if (!NOT_FORWARDED.has(k) && k !== 'content-encoding') void reply.header(k, v);
    });
    await reply.header('x-weir-leader', leader).send(body);
    return true;
  };
}
