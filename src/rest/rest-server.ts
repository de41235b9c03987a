import { randomBytes } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { JobMaster } from '../coordinator/job-master.ts';
import type { Logger } from '../log/logger.ts';
import { jobDetails, jobExceptions, jobOverview, jobsList, jobSummary } from './job-views.ts';
import { createMetricsEndpoint } from './prometheus.ts';
import { checkpointConfig, checkpointDetails, checkpointSubtasks, checkpointsOverview } from './checkpoint-views.ts';
import { registerDashboard } from './dashboard-files.ts';
import { requestGuard } from './request-guard.ts';
import type { CancelView, ErrorView, JobsOverviewView, OperationStatusView, SavepointTriggerView } from './rest-views.ts';

export interface RestServerOptions {
  readonly master: JobMaster;
  readonly host: string;
  /** The first port to try; the next free one is taken if it is in use. 0: any free port. */
  readonly port: number;
  readonly token: string | null;
  /** Whether GET calls other than the dashboard's files need the token too; unset: when the host is beyond loopback. */
  readonly tokenRequiredForReads?: boolean | null;
  readonly log: Logger;
}

export interface RestServer {
  readonly url: string;
  readonly port: number;
  /** Closes once every triggered operation's result was read (or after graceMs). */
  close(graceMs?: number): Promise<void>;
}

/** The operations started by POST and polled by GET (savepoints and stops), as Flink's trigger ids. */
interface AsyncOperation {
  /** Set once the operation completed: where the savepoint is, or why it failed. */
  outcome?: OperationStatusView['operation'];
  /** Whether a client has read the completed result (a stop's client polls after the job ended). */
  fetched: boolean;
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
  const operations = new Map<string, AsyncOperation>();
  const { master } = o;

  app.setErrorHandler((error: Error & { statusCode?: number; validation?: unknown }, _req, reply) => {
    const status = error.statusCode && error.statusCode < 500 ? error.statusCode : error.validation ? 400 : 500;
    void reply.code(status).send(errorView(error.message));
  });
  app.setNotFoundHandler((req, reply) => void reply.code(404).send(errorView(`no such resource: ${req.method} ${req.url}`)));
  const guard = requestGuard({ token: o.token, tokenRequiredForReads: o.tokenRequiredForReads ?? !loopback });
  app.addHook('onRequest', async (req: FastifyRequest, reply: FastifyReply) => {
    const refusal = guard(req);
    if (refusal) return reply.code(refusal.status).send(errorView(refusal.message));
  });
  const job = (req: FastifyRequest): JobMaster => {
    const id = (req.params as { jobid: string }).jobid;
    if (id !== master.jobId) throw Object.assign(new Error(`job ${id} not found`), { statusCode: 404 });
    return master;
  };
  const track = (work: Promise<{ directory: string }>): string => {
    const id = randomBytes(16).toString('hex');
    const op: AsyncOperation = { fetched: false };
    operations.set(id, op);
    work.then(
      (sp) => (op.outcome = { location: sp.directory }),
      (e: Error) => (op.outcome = { 'failure-cause': { class: 'SavepointError', 'stack-trace': e.message } }),
    );
    return id;
  };
  const jobIdParam = { type: 'object', properties: { jobid: { type: 'string', pattern: '^[0-9a-f]{32}$' } }, required: ['jobid'] } as const;

  // The web dashboard (web/index.html and its files under /web/).
  registerDashboard(app);
  app.get('/overview', async () => jobOverview([master]));
  const metrics = createMetricsEndpoint([master]);
  app.get('/metrics', async (_req, reply) => reply.type(metrics.contentType).send(await metrics.scrape()));
  app.get('/jobs', async () => jobsList([master]));
  app.get('/jobs/overview', async (): Promise<JobsOverviewView> => ({ jobs: [jobSummary(master)] }));
  app.get('/jobs/:jobid', { schema: { params: jobIdParam } }, async (req) => jobDetails(job(req)));
  app.get('/jobs/:jobid/exceptions', { schema: { params: jobIdParam } }, async (req) => jobExceptions(job(req)));
  app.get('/jobs/:jobid/checkpoints', { schema: { params: jobIdParam } }, async (req) => checkpointsOverview(job(req)));
  app.get('/jobs/:jobid/checkpoints/config', { schema: { params: jobIdParam } }, async (req) => checkpointConfig(job(req)));
  const cidParams = { type: 'object', properties: { jobid: { type: 'string', pattern: '^[0-9a-f]{32}$' }, checkpointid: { type: 'string', pattern: '^[1-9][0-9]{0,15}$' } }, required: ['jobid', 'checkpointid'] } as const;
  app.get('/jobs/:jobid/checkpoints/details/:checkpointid', { schema: { params: cidParams } }, async (req) =>
    checkpointDetails(job(req), Number((req.params as { checkpointid: string }).checkpointid)),
  );
  app.get('/jobs/:jobid/checkpoints/details/:checkpointid/subtasks/:vertexid', { schema: { params: { ...cidParams, properties: { ...cidParams.properties, vertexid: { type: 'string' } } } } }, async (req) => {
    const p = req.params as { checkpointid: string; vertexid: string };
    return checkpointSubtasks(job(req), Number(p.checkpointid), p.vertexid);
  });

  app.post(
    '/jobs/:jobid/savepoints',
    {
      schema: {
        params: jobIdParam,
        body: { type: 'object', properties: { 'target-directory': { type: 'string', minLength: 1 }, 'cancel-job': { type: 'boolean' } }, additionalProperties: false },
      },
    },
    async (req, reply) => {
      const m = job(req);
      const body = (req.body ?? {}) as { 'target-directory'?: string; 'cancel-job'?: boolean };
      const work = m.triggerSavepoint(body['target-directory']).then(async (sp) => {
        if (body['cancel-job']) await m.cancel();
        return sp;
      });
      return reply.code(202).send({ 'request-id': track(work) } satisfies SavepointTriggerView);
    },
  );
  app.get('/jobs/:jobid/savepoints/:triggerid', { schema: { params: { type: 'object', properties: { jobid: jobIdParam.properties.jobid, triggerid: { type: 'string' } } } } }, async (req): Promise<OperationStatusView> => {
    job(req);
    const op = operations.get((req.params as { triggerid: string }).triggerid);
    if (!op) throw Object.assign(new Error('unknown trigger id'), { statusCode: 404 });
    if (!op.outcome) return { status: { id: 'IN_PROGRESS' } };
    op.fetched = true;
    return { status: { id: 'COMPLETED' }, operation: op.outcome };
  });
  app.post(
    '/jobs/:jobid/stop',
    {
      schema: {
        params: jobIdParam,
        body: { type: 'object', properties: { targetDirectory: { type: 'string', minLength: 1 }, drain: { type: 'boolean' } }, additionalProperties: false },
      },
    },
    async (req, reply) => {
      const m = job(req);
      const body = (req.body ?? {}) as { targetDirectory?: string; drain?: boolean };
      return reply.code(202).send({ 'request-id': track(m.stopWithSavepoint(body.targetDirectory, body.drain ?? false)) } satisfies SavepointTriggerView);
    },
  );
  app.patch(
    '/jobs/:jobid',
    {
      schema: { params: jobIdParam, querystring: { type: 'object', properties: { mode: { type: 'string', enum: ['cancel'] } }, required: ['mode'] } },
    },
    async (req, reply) => {
      void job(req).cancel();
      return reply.code(202).send({} satisfies CancelView);
    },
  );

  const port = await listen(app, o.host, o.port);
  const url = `http://${o.host.includes(':') ? `[${o.host}]` : o.host}:${port}`;
  o.log.info(`REST API listening on ${url}`);
  return {
    url,
    port,
    // A stop-with-savepoint ends the job; its client still polls for the savepoint's path.
    close: async (graceMs = 3000) => {
      const deadline = Date.now() + graceMs;
      while (Date.now() < deadline && [...operations.values()].some((op) => !op.fetched)) await new Promise((r) => setTimeout(r, 25));
      await app.close();
      metrics.close();
    },
  };
}

async function listen(app: FastifyInstance, host: string, first: number): Promise<number> {
  for (let port = first, i = 0; ; port++, i++) {
    try {
      await app.listen({ host, port });
      const address = app.server.address();
      return typeof address === 'object' && address ? address.port : port;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE' || first === 0 || i >= PORT_ATTEMPTS) throw e;
    }
  }
}
