import { SECRET_CONFIG_KEYS, type WeirConfig } from '../config/configuration.ts';
import type { JobMaster } from '../coordinator/job-master.ts';
import { createRestartStrategy } from '../coordinator/restart-strategy.ts';
import type { DashboardConfigView, JobConfigView, JobPlanView, PlanNodeView } from './rest-views.ts';
import { jobName } from './job-name.ts';
import { WEIR_VERSION } from './weir-version.ts';

/** GET /jobs/:id/config (Flink's JobConfigInfo): the settings the job runs with. */
export function jobConfig(m: JobMaster): JobConfigView {
  const c = m.plan.config;
  const userConfig: Record<string, string> = {};
  for (const [key, value] of Object.entries(c) as Array<[keyof WeirConfig, unknown]>) {
    // Tokens and passwords are secrets: a reader of the configuration must not learn them.
    if (value === null || SECRET_CONFIG_KEYS.has(key)) continue;
    userConfig[key] = String(value);
  }
  return {
    jid: m.jobId,
    name: jobName(m),
    'execution-config': {
      // weir's exchanges are all pipelined (no batch mode).
      'execution-mode': 'PIPELINED',
      'restart-strategy': createRestartStrategy(c).description,
      'job-parallelism': c['parallelism.default'],
      // Chained operators hand records on by reference, as Flink's do with object reuse on.
      'object-reuse-mode': true,
      'user-config': userConfig,
    },
  };
}

/** GET /jobs/:id/plan (Flink's JobPlanInfo, as its JsonPlanGenerator writes it). */
export function jobPlan(m: JobMaster): JobPlanView {
  return {
    plan: {
      jid: m.jobId,
      name: jobName(m),
      type: 'STREAMING',
      nodes: m.graph.vertices.map((v): PlanNodeView => ({
        id: v.id,
        parallelism: v.parallelism,
        operator: v.operators.map((o) => o.spec.kind).join(' -> '),
        operator_strategy: '',
        description: v.operators.map((o) => o.name).join(' -> '),
        // Flink leaves `inputs` out of a source's node.
        ...(v.inputs.length > 0
          ? { inputs: v.inputs.map((e, num) => ({ num, id: e.source.id, ship_strategy: e.partitioner.kind.toUpperCase(), exchange: 'pipelined_bounded' as const })) }
          : {}),
        optimizer_properties: {},
      })),
    },
  };
}

/** GET /config (Flink's DashboardConfiguration): what a dashboard needs to know of this JobManager. */
export function dashboardConfig(now = new Date()): DashboardConfigView {
  return {
    // weir's own dashboard polls every second.
    'refresh-interval': 1000,
    'timezone-name': Intl.DateTimeFormat().resolvedOptions().timeZone,
    'timezone-offset': -now.getTimezoneOffset() * 60_000,
    'flink-version': WEIR_VERSION,
    'flink-revision': WEIR_VERSION,
    // No jar upload or rescaling; cancelling works; no history server.
    features: { 'web-submit': false, 'web-cancel': true, 'web-rescale': false, 'web-history': false },
  };
}
