// The writing thread of the `exchange` scenario: builds N records and either only adds them up
// (the loop) or writes them into a ring output channel, waiting when the ring is full.
import { parentPort, workerData } from 'node:worker_threads';
import { systemClock } from '../../src/clock/clock.ts';
import { RingOutputChannel } from '../../src/network/ring-output-channel.ts';
import { SegmentRing, type RingShape } from '../../src/network/segment-ring.ts';
import { codecFor, WORKLOADS, type ExchangeWorkload } from './exchange-workloads.ts';

export interface WriterJob {
  readonly mode: 'loop' | 'declared' | 'rows' | 'inferred';
  readonly workload: ExchangeWorkload['id'];
  readonly records: number;
  readonly ring?: SharedArrayBuffer;
  readonly shape?: RingShape;
}

const port = parentPort!;

/**
 * The loop's latest record. Storing it makes every record escape, as an emitted one does: without
 * it V8 optimized the records' allocation out of the loop (2 ns a record, nothing built), so the
 * exchange's figure also carried the cost of building them.
 */
let built: unknown;

async function run(job: WriterJob): Promise<number> {
  const w = WORKLOADS[job.workload];
  const n = job.records;
  if (job.mode === 'loop') {
    let sum = 0;
    for (let i = 0; i < n; i++) {
      const record = w.make(i);
      built = record;
      sum += w.touch(record);
    }
    return built === undefined ? -1 : sum;
  }
  const out = new RingOutputChannel(SegmentRing.attach(job.ring!, job.shape!), codecFor(job.mode, w), systemClock);
  let i = 0;
  while (i < n) {
    while (i < n && out.writable) out.emit(w.make(i++));
    if (!out.writable) await new Promise<void>((resolve) => (out.onWritable = resolve));
  }
  out.sendEvent({ kind: 'end-of-data' });
  while (!out.writable) await new Promise<void>((resolve) => (out.onWritable = resolve));
  return out.bytesOut;
}

// 'stop' lets the thread end by itself (not terminate()d), so that --cpu-prof writes its profile.
port.on('message', (job: WriterJob | 'stop') => {
  if (job === 'stop') return port.close();
  void run(job).then((result) => port.postMessage({ result }));
});
