import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { CompletedCheckpoint } from '../coordinator/completed-checkpoint.ts';
import type { JobMaster } from '../coordinator/job-master.ts';
import { checkpointConfig, checkpointDetails, checkpointId, checkpointSubtasks, checkpointsOverview } from './checkpoint-views.ts';
import { dashboardConfig, jobConfig, jobPlan } from './job-config-views.ts';
import { watchJob } from './job-timeline.ts';
import { jobDetails, jobExceptions, jobOverview, jobsList, jobSummary } from './job-views.ts';
import { aggregateMetrics, parseAggregations, parseSubtaskRanges, queryMetrics } from './metric-query.ts';
import type {
  CancelView,
  CheckpointOperationStatusView,
  JobsOverviewView,
  OperationStatusView,
  SavepointTriggerView,
} from './rest-views.ts';
import type { JobDirectory } from './job-directory.ts';
import { pipelineView } from './pipeline-view.ts';
import { targetDirectory } from './target-directory.ts';
import { TRIGGER_ID_PATTERN, type OperationKind, type TriggerOperations } from './trigger-operations.ts';
import { jobMetrics, subtaskMetrics, vertexMetrics } from './rest-metrics.ts';
import { vertexBackpressure, vertexDetails, vertexOf, vertexWatermarks } from './vertex-views.ts';

export interface FlinkApiOptions {
  readonly jobs: JobDirectory;
  /** Shared by the routes at / and at /v1/: a trigger id from one is polled at the other. */
  readonly operations: TriggerOperations;
  /** A JobManager process's TaskManagers and slots, for GET /overview. */
  /** The cluster's figures for /overview (a JobManager's TaskManagers and slots, its leadership with HA). */
  readonly cluster?: () => { taskmanagers: number; 'slots-total': number; 'slots-available': number; readonly [key: string]: unknown };
}

type SavepointOutcome = NonNullable<OperationStatusView['operation']>;
type CheckpointOutcome = NonNullable<CheckpointOperationStatusView['operation']>;

const JOB_ID = { type: 'string', pattern: '^[0-9a-f]{32}$' } as const;
const jobIdParam = { type: 'object', properties: { jobid: JOB_ID }, required: ['jobid'] } as const;
const vertexParams = { type: 'object', properties: { jobid: JOB_ID, vertexid: { type: 'string' } }, required: ['jobid', 'vertexid'] } as const;
const triggerParams = { type: 'object', properties: { jobid: JOB_ID, triggerid: { type: 'string' } }, required: ['jobid', 'triggerid'] } as const;
// weir's `latest` besides Flink's numeric ids.
const cidParams = { type: 'object', properties: { jobid: JOB_ID, checkpointid: { type: 'string', pattern: '^(?:[1-9][0-9]{0,15}|latest)$' } }, required: ['jobid', 'checkpointid'] } as const;
// Flink's clients send the optional fields as null when they have no value.
const nullableString = (extra: object = {}) => ({ anyOf: [{ type: 'string', ...extra }, { type: 'null' }] });
const TRIGGER_ID = nullableString({ pattern: TRIGGER_ID_PATTERN });
// weir writes one savepoint format (its own _metadata and state files, read by `weir run -s` and
// `weir inspect`): either of Flink's is accepted and makes the same savepoint.
const FORMAT_TYPE = { anyOf: [{ type: 'string', enum: ['CANONICAL', 'NATIVE'] }, { type: 'null' }] };
const metricQuery = { type: 'object', properties: { get: { type: 'string' }, agg: { type: 'string' }, subtasks: { type: 'string' }, jobs: { type: 'string' } } } as const;

const failureCause = (e: Error) => ({ class: e.name, 'stack-trace': e.message });

/**
 * The REST API on Flink's paths (rest_v1_dispatcher.yml), as a Fastify plugin: rest-server.ts
 * registers it twice, at / and at /v1/, because Flink serves every path under both and its
 * clients call /v1/. Answers carry Flink's fields, and weir's own beside them where the dashboard
 * or the CLI reads them.
 */
export async function flinkApi(app: FastifyInstance, o: FlinkApiOptions): Promise<void> {
  const { jobs, operations } = o;
  const all = (): readonly JobMaster[] => {
    const list = jobs.list();
    for (const m of list) watchJob(m);
    return list;
  };
  all();
  const job = (req: FastifyRequest): JobMaster => {
    const id = (req.params as { jobid: string }).jobid;
    const m = jobs.get(id);
    if (!m) throw jobs.absent?.(id) ?? Object.assign(new Error(`job ${id} not found`), { statusCode: 404 });
    watchJob(m);
    return m;
  };
  const savepointOutcome = (work: () => Promise<CompletedCheckpoint>) => async (): Promise<SavepointOutcome> => ({ location: (await work()).directory });
  const savepointFailed = (e: Error): SavepointOutcome => ({ 'failure-cause': { ...failureCause(e), class: 'SavepointError' } });
  const operationStatus = <Outcome>(req: FastifyRequest, kind: OperationKind) => {
    const op = operations.get<Outcome>(job(req).jobId, kind, (req.params as { triggerid: string }).triggerid);
    if (!op) throw Object.assign(new Error('unknown trigger id'), { statusCode: 404 });
    if (!op.outcome) return { status: { id: 'IN_PROGRESS' as const } };
    op.fetched = true;
    return { status: { id: 'COMPLETED' as const }, operation: op.outcome };
  };
  const query = (req: FastifyRequest) => req.query as { get?: string; agg?: string; subtasks?: string; jobs?: string };

  app.get('/overview', async () => ({ ...jobOverview(all()), ...(o.cluster?.() ?? {}) }));
  app.get('/config', async () => dashboardConfig());
  app.get('/jobs', async () => jobsList(all()));
  app.get('/jobs/overview', async (): Promise<JobsOverviewView> => ({ jobs: all().map((m) => jobSummary(m)) }));
  app.get('/jobs/metrics', { schema: { querystring: metricQuery } }, async (req) => {
    const q = query(req);
    const ids = q.jobs?.split(',').map((s) => s.trim()).filter(Boolean);
    const masters = ids === undefined ? all() : all().filter((m) => ids.includes(m.jobId));
    return aggregateMetrics(masters.map((m) => jobMetrics(m)), q.get, parseAggregations(q.agg));
  });
  app.get('/jobs/:jobid', { schema: { params: jobIdParam } }, async (req) => jobDetails(job(req)));
  app.get('/jobs/:jobid/status', { schema: { params: jobIdParam } }, async (req) => ({ status: job(req).status }));
  app.get('/jobs/:jobid/exceptions', { schema: { params: jobIdParam } }, async (req) => jobExceptions(job(req)));
  app.get('/jobs/:jobid/config', { schema: { params: jobIdParam } }, async (req) => jobConfig(job(req)));
  app.get('/jobs/:jobid/plan', { schema: { params: jobIdParam } }, async (req) => jobPlan(job(req)));
  app.get('/jobs/:jobid/metrics', { schema: { params: jobIdParam, querystring: metricQuery } }, async (req) => queryMetrics(jobMetrics(job(req)), query(req).get));
  // weir's own: a pipeline's source tables (404 for other jobs).
  app.get('/jobs/:jobid/pipeline', { schema: { params: jobIdParam } }, async (req) => {
    const view = pipelineView(job(req));
    if (!view) throw Object.assign(new Error(`job ${(req.params as { jobid: string }).jobid} is not a pipeline (weir pipeline FILE)`), { statusCode: 404 });
    return view;
  });

  // ---- vertices ----
  const vertex = (req: FastifyRequest) => {
    const m = job(req);
    return { m, v: vertexOf(m, (req.params as { vertexid: string }).vertexid) };
  };
  app.get('/jobs/:jobid/vertices/:vertexid', { schema: { params: vertexParams } }, async (req) => {
    const { m, v } = vertex(req);
    return vertexDetails(m, v);
  });
  app.get('/jobs/:jobid/vertices/:vertexid/backpressure', { schema: { params: vertexParams } }, async (req) => {
    const { m, v } = vertex(req);
    return vertexBackpressure(m, v);
  });
  app.get('/jobs/:jobid/vertices/:vertexid/watermarks', { schema: { params: vertexParams } }, async (req) => {
    const { m, v } = vertex(req);
    return vertexWatermarks(m, v);
  });
  app.get('/jobs/:jobid/vertices/:vertexid/metrics', { schema: { params: vertexParams, querystring: metricQuery } }, async (req) => {
    const { m, v } = vertex(req);
    return queryMetrics(vertexMetrics(m, v), query(req).get);
  });
  app.get('/jobs/:jobid/vertices/:vertexid/subtasks/metrics', { schema: { params: vertexParams, querystring: metricQuery } }, async (req) => {
    const { m, v } = vertex(req);
    const q = query(req);
    const selected = parseSubtaskRanges(q.subtasks, v.parallelism);
    const now = Date.now();
    const each = Array.from({ length: v.parallelism }, (_, i) => i).filter((i) => !selected || selected.has(i)).map((i) => subtaskMetrics(m, v, i));
    return aggregateMetrics(each, q.get, parseAggregations(q.agg));
  });

  // ---- checkpoints ----
  app.get('/jobs/:jobid/checkpoints', { schema: { params: jobIdParam } }, async (req) => checkpointsOverview(job(req)));
  app.get('/jobs/:jobid/checkpoints/config', { schema: { params: jobIdParam } }, async (req) => checkpointConfig(job(req)));
  app.get('/jobs/:jobid/checkpoints/details/:checkpointid', { schema: { params: cidParams } }, async (req) => {
    const m = job(req);
    return checkpointDetails(m, checkpointId(m, (req.params as { checkpointid: string }).checkpointid));
  });
  app.get(
    '/jobs/:jobid/checkpoints/details/:checkpointid/subtasks/:vertexid',
    { schema: { params: { ...cidParams, properties: { ...cidParams.properties, vertexid: { type: 'string' } } } } },
    async (req) => {
      const m = job(req);
      const p = req.params as { checkpointid: string; vertexid: string };
      return checkpointSubtasks(m, checkpointId(m, p.checkpointid), p.vertexid);
    },
  );
  app.post(
    '/jobs/:jobid/checkpoints',
    {
      schema: {
        params: jobIdParam,
        // weir's heap state backend writes full snapshots: CONFIGURED, FULL and INCREMENTAL all take one
        // (as a Flink state backend without incremental snapshots does).
        body: { type: 'object', properties: { checkpointType: { anyOf: [{ type: 'string', enum: ['CONFIGURED', 'FULL', 'INCREMENTAL'] }, { type: 'null' }] }, triggerId: TRIGGER_ID }, additionalProperties: false },
      },
    },
    async (req, reply) => {
      const m = job(req);
      const body = (req.body ?? {}) as { triggerId?: string | null };
      const id = operations.start<CheckpointOutcome>(
        m.jobId,
        'checkpoint',
        body.triggerId ?? undefined,
        async () => {
          const cp = await m.triggerCheckpoint();
          return { checkpointId: cp.id, location: cp.directory };
        },
        (e) => ({ failureCause: { ...failureCause(e), class: e.name } }),
      );
      return reply.code(202).send({ 'request-id': id } satisfies SavepointTriggerView);
    },
  );
  app.get('/jobs/:jobid/checkpoints/:triggerid', { schema: { params: triggerParams } }, async (req): Promise<CheckpointOperationStatusView> =>
    operationStatus<CheckpointOutcome>(req, 'checkpoint'),
  );

  // ---- savepoints, stop, cancel ----
  app.post(
    '/jobs/:jobid/savepoints',
    {
      schema: {
        params: jobIdParam,
        body: {
          type: 'object',
          properties: { 'target-directory': nullableString({ minLength: 1 }), 'cancel-job': { type: 'boolean' }, formatType: FORMAT_TYPE, triggerId: TRIGGER_ID },
          additionalProperties: false,
        },
      },
    },
    async (req, reply) => {
      const m = job(req);
      const body = (req.body ?? {}) as { 'target-directory'?: string | null; 'cancel-job'?: boolean; triggerId?: string | null };
      const target = targetDirectory('target-directory', body['target-directory']);
      const work = savepointOutcome(async () => {
        const sp = await m.triggerSavepoint(target);
        if (body['cancel-job']) await m.cancel();
        return sp;
      });
      const id = operations.start(m.jobId, 'savepoint', body.triggerId ?? undefined, work, savepointFailed);
      return reply.code(202).send({ 'request-id': id } satisfies SavepointTriggerView);
    },
  );
  app.get('/jobs/:jobid/savepoints/:triggerid', { schema: { params: triggerParams } }, async (req): Promise<OperationStatusView> =>
    operationStatus<SavepointOutcome>(req, 'savepoint'),
  );
  app.post(
    '/jobs/:jobid/stop',
    {
      schema: {
        params: jobIdParam,
        body: {
          type: 'object',
          properties: { targetDirectory: nullableString({ minLength: 1 }), drain: { type: 'boolean' }, formatType: FORMAT_TYPE, triggerId: TRIGGER_ID },
          additionalProperties: false,
        },
      },
    },
    async (req, reply) => {
      const m = job(req);
      const body = (req.body ?? {}) as { targetDirectory?: string | null; drain?: boolean; triggerId?: string | null };
      const target = targetDirectory('targetDirectory', body.targetDirectory);
      const work = savepointOutcome(() => m.stopWithSavepoint(target, body.drain ?? false));
      const id = operations.start(m.jobId, 'savepoint', body.triggerId ?? undefined, work, savepointFailed);
      return reply.code(202).send({ 'request-id': id } satisfies SavepointTriggerView);
    },
  );
  app.patch(
    '/jobs/:jobid',
    {
      // Flink's client sends mode=cancel; its specification spells the values upper case.
      schema: { params: jobIdParam, querystring: { type: 'object', properties: { mode: { type: 'string', enum: ['cancel', 'CANCEL'] } }, required: ['mode'] } },
    },
    async (req, reply) => {
      void job(req).cancel();
      return reply.code(202).send({} satisfies CancelView);
    },
  );
}
