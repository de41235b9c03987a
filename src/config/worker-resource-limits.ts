import type { ResourceLimits } from 'node:worker_threads';
import type { WeirConfig } from './configuration.ts';

/**
 * The V8 heap limits of a TaskManager worker thread. Measured on Nexmark (`npm run bench --
 * nexmark`, p1, 192mb against Node's 48mb): 8-78% more events per CPU-second, mostly from V8's
 * helper threads collecting less (0.2-0.3 cores down to 0.05-0.2), since fewer records and
 * buffers outlive a young collection.
 */
export function workerResourceLimits(config: Pick<WeirConfig, 'taskmanager.memory.young-generation.size'>): ResourceLimits {
  return { maxYoungGenerationSizeMb: config['taskmanager.memory.young-generation.size'] / (1024 * 1024) };
}
