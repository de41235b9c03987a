import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { JobMaster } from '../coordinator/job-master.ts';
import type { Stoppable, StopReason } from '../lifecycle/service.ts';
import type { Logger } from '../log/logger.ts';
import { createMetricsEndpoint } from './prometheus.ts';
import { registerDashboard } from './dashboard-files.ts';
import { flinkApi, type FlinkApiOptions } from './flink-api.ts';
import { singleJob, type JobDirectory } from './job-directory.ts';
import { requestGuard } from './request-guard.ts';
import type { ErrorView } from './rest-views.ts';
import { TriggerOperations } from './trigger-operations.ts';

export interface RestServerOptions {
  /** The job of `weir run`, or a JobManager process's jobs. */
  readonly master?: JobMaster;
  readonly jobs?: JobDirectory;
  /** More routes (a JobManager process's: TaskManagers, jar upload, bundles) and the HTTP server before it listens (RPC upgrades). */
  readonly extend?: (app: FastifyInstance) => void | Promise<void>;
  readonly cluster?: FlinkApiOptions['cluster'];
  /** Answers a request elsewhere before any route (a standby JobManager forwards to the leader); true when it did. */
  readonly forward?: (req: FastifyRequest, reply: FastifyReply) => Promise<boolean>;
  readonly host: string;
  /** The first port to try; the next free one is taken if it is in use (unless exactPort). 0: any free port. */
  readonly port: number;
  /** A port in use is an error, not a reason to take the next (a JobManager's address is known to others). */
  readonly exactPort?: boolean;
  readonly token: string | null;
  /** Whether GET calls other than the dashboard's files need the token too; unset: when the host is beyond loopback. */
  readonly tokenRequiredForReads?: boolean | null;
  readonly log: Logger;
}

/** Started by startRestServer (it listens), stopped once. */
export interface RestServer extends Stoppable {
  readonly url: string;
  readonly port: number;
  readonly app: FastifyInstance;
  /** Stops once every triggered operation's result was read (or after graceMs). */
  stop(reason: StopReason, graceMs?: number): Promise<void>;
}

const errorView = (message: string): ErrorView => ({ errors: [message] });

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);
const PORT_ATTEMPTS = 50;

/**
 * The JobManager's REST API, on Flink's paths and field names where they correspond. Who may call
 * it is request-guard.ts's rule, checked before routing (so for the dashboard's files and 404s too).
 */
export async function startRestServer(o: RestServerOptions): Promise<RestServer> {
  const loopback = LOOPBACK.has(o.host);
  if (!loopback && !o.token) throw new Error(`rest.bind-address is ${o.host}: set rest.token, which every mutating call must then present`);
  if (o.tokenRequiredForReads && !o.token) throw new Error('rest.token-required-for-reads is true: set rest.token, which reads must then present');
  // No type coercion: a body of the wrong type (`"drain": "yes"`, `"target-directory": 5`) is a 400,
  // not a guess (Fastify's default would take 5 for the directory "5"). Path parameters are strings.
  const app = Fastify({ logger: false, ajv: { customOptions: { removeAdditional: false, coerceTypes: false } } });
  const operations = new TriggerOperations();
  const jobs = o.jobs ?? singleJob(o.master!);

  app.setErrorHandler((error: Error & { statusCode?: number; validation?: unknown }, _req, reply) => {
    // 503 is a refusal (a standby without a leader), not a failure of the server's own.
    const status = error.statusCode && (error.statusCode < 500 || error.statusCode === 503) ? error.statusCode : error.validation ? 400 : 500;
    void reply.code(status).send(errorView(error.message));
  });
  app.setNotFoundHandler((req, reply) => void reply.code(404).send(errorView(`no such resource: ${req.method} ${req.url}`)));
  const guard = requestGuard({ token: o.token, tokenRequiredForReads: o.tokenRequiredForReads ?? !loopback });
  app.addHook('onRequest', async (req: FastifyRequest, reply: FastifyReply) => {
    const refusal = guard(req);
    if (refusal) return reply.code(refusal.status).send(errorView(refusal.message));
    if (o.forward && (await o.forward(req, reply))) return reply;
  });
  // The web dashboard (web/index.html and its files under /web/).
  registerDashboard(app);
  const metrics = createMetricsEndpoint(jobs);
  app.get('/metrics', async (_req, reply) => reply.type(metrics.contentType).send(await metrics.scrape()));
  // Flink's paths, each also under /v1/ as Flink serves them (its clients call /v1/...).
  const cluster = o.cluster ? { cluster: o.cluster } : {};
  await app.register(flinkApi, { jobs, operations, ...cluster });
  await app.register(flinkApi, { prefix: '/v1', jobs, operations, ...cluster });
  await o.extend?.(app);

  const port = await listen(app, o.host, o.port, o.exactPort === true);
  const url = `http://${o.host.includes(':') ? `[${o.host}]` : o.host}:${port}`;
  o.log.info(`REST API listening on ${url}`);
  return {
    url,
    port,
    app,
    // A stop-with-savepoint ends the job; its client still polls for the savepoint's path. The
    // wait ends as soon as it has read it; 15 s covers a client whose polls (1 s apart at most)
    // are slowed by a busy machine (3 s was seen to be too short there: `weir stop --drain` then
    // found the JobManager gone and exited 2 although the savepoint had completed).
    stop: async (reason, graceMs = 15_000) => {
      const deadline = Date.now() + graceMs;
      while (Date.now() < deadline && operations.anyUnread) await new Promise((r) => setTimeout(r, 25));
      await app.close();
      await metrics.stop(reason);
    },
  };
}

/** The port asked for is taken, and the server may not take another. */
export class PortInUseError extends Error {
  readonly host: string;
  readonly port: number;

  constructor(host: string, port: number, cause: unknown) {
    super(`${host}:${port} is in use by another process: choose another port (--port, rest.port) or stop what listens there`, { cause });
    this.name = 'PortInUseError';
    this.host = host;
    this.port = port;
  }
}

async function listen(app: FastifyInstance, host: string, first: number, exact: boolean): Promise<number> {
  for (let port = first, i = 0; ; port++, i++) {
    try {
      await app.listen({ host, port });
      const address = app.server.address();
      return typeof address === 'object' && address ? address.port : port;
    } catch (e) {
      const inUse = (e as NodeJS.ErrnoException).code === 'EADDRINUSE';
      if (inUse && exact) throw new PortInUseError(host, port, e);
      if (!inUse || first === 0 || i >= PORT_ATTEMPTS) throw e;
    }
  }
}
