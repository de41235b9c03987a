import type { JobGraph } from './job-graph.ts';

/**
 * pipeline.name (env.setJobName, `weir run --name`), else the first source's name: what the REST
 * API shows and what a sink's default transaction-id prefix is made from, so it must come out the
 * same on the JobManager and in every TaskManager that plans the job.
 */
export function jobNameOf(graph: Pick<JobGraph, 'vertices'>, configured: string | null | undefined): string {
  return configured ?? graph.vertices.find((v) => v.isSource)?.name ?? 'job';
}
