// A worker thread of the `nexmark` benchmark's two-thread ceiling: warms the generator up, posts
// 'ready', and on 'go' makes workerData.events Nexmark events (from workerData.from) and posts how
// long that took, in ms (thread start and module loading left out).
import { parentPort, workerData } from 'node:worker_threads';
import { NexmarkGenerator } from '../../src/connectors/nexmark/index.ts';

const { from, events } = workerData as { from: number; events: number };
const gen = new NexmarkGenerator();
for (let n = 0; n < 20_000; n++) gen.eventAt(n);
parentPort!.once('message', () => {
  let bids = 0;
  const start = performance.now();
  for (let n = from; n < from + events; n++) if (gen.eventAt(n).bid !== null) bids++;
  parentPort!.postMessage({ type: 'done', ms: performance.now() - start, bids });
});
parentPort!.postMessage({ type: 'ready' });
