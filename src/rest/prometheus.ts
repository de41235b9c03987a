import { Registry } from 'prom-client';
import type { Stoppable } from '../lifecycle/service.ts';
import type { JobDirectory } from './job-directory.ts';
import { registerFlinkMetrics } from './flink-metrics.ts';
import { processMetrics } from './process-metrics.ts';
import { registerWeirMetrics } from './weir-metrics.ts';

/** Created with its REST server, stopped with it. */
export interface MetricsEndpoint extends Stoppable {
  readonly contentType: string;
  /** The Prometheus text format (version 0.0.4) of every family. */
  scrape(): Promise<string>;
}

/**
 * GET /metrics of one REST server: a registry of its own (several servers, and jobs, may run in
 * one process) with the figures under Flink's names and weir's, read from the JobMasters when
 * scraped, and the process's figures shared by every server of the process.
 */
export function createMetricsEndpoint(jobs: JobDirectory): MetricsEndpoint {
  const registry = new Registry();
  registerFlinkMetrics(registry, jobs);
  const weir = registerWeirMetrics(registry, jobs);
  return {
    contentType: registry.contentType,
    scrape: () => {
      weir.discoverSourceFigures();
      return Registry.merge([processMetrics(), registry]).metrics();
    },
    stop: (reason) => weir.stop(reason),
  };
}
