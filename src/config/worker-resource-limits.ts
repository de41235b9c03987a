import type { ResourceLimits } from 'node:worker_threads';
import type { WeirConfig } from './configuration.ts';

/**
 * The V8 heap limits of a TaskManager worker thread. A young generation of 192mb against Node's
 * 48mb, on Nexmark (`npm run bench -- nexmark --set taskmanager.memory.young-generation.size=..`,
 * alternated twice): 3-50% more events per CPU-second at p1 and 8-34% at p2 (q0, q7, q17, q19),
 * as fewer records and buffers outlive a young collection and V8's helper threads collect less
 * (q0 at p1: 0.3 cores down to 0.1).
 */
export function workerResourceLimits(config: Pick<WeirConfig, 'taskmanager.memory.young-generation.size'>): ResourceLimits {
  return { maxYoungGenerationSizeMb: config['taskmanager.memory.young-generation.size'] / (1024 * 1024) };
}
