// Scenario `ha-storage`: checkpoint duration with the JetStream object store as checkpoint storage
// (`nats-obj://`, a private 3-node NATS cluster with replicas 3, test/fixtures/nats-cluster.ts)
// against the file system (a temporary directory), on the same job: DataGen {key: i % K, v: 1}
// -> keyBy(key) -> sum('v') -> a discarding sink, K keys (default 200,000), N records (default
// 4M), checkpoints every second, on the in-thread TaskManager. Both variants in every run, in
// rotating order. Reported per variant: completed checkpoints, state size, and the median and max
// of each checkpoint's end-to-end duration (trigger to the last acknowledgement, which includes
// the subtasks' uploads), of its slowest subtask's asynchronous part (serialize + write or
// upload), and the job's records/s.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createJobMaster } from '../../src/index.ts';
import { fmtMs, fmtNumber, intFlag, max, median, settle, type Scenario, type ScenarioResult } from '../harness.ts';
import { keyedSumJob, Probe } from '../jobs/keyed-state-bench.ts';
import { startNatsCluster } from '../../test/fixtures/nats-cluster.ts';

interface Sample {
  readonly run: number;
  readonly variant: 'file system' | 'nats-obj (R3)';
  readonly wallMs: number;
  readonly checkpoints: number;
  readonly stateBytes: number;
  readonly durationMs: number[];
  readonly asyncMs: number[];
}

export const haStorage: Scenario = {
  name: 'ha-storage',
  description: 'checkpoint duration with the NATS JetStream object store (3 nodes, replicas 3) vs the file system, same keyed job',
  flags: { '--keys N': 'distinct keys, the state size (default 200000)' },
  defaultRuns: 3,
  async run(options): Promise<ScenarioResult> {
    const keys = intFlag(options, 'keys', 200_000);
    const records = options.records ?? 4_000_000;
    options.log('starting a private 3-node NATS cluster');
    const cluster = await startNatsCluster();
    const samples: Sample[] = [];
    try {
      const variants = ['file system', 'nats-obj (R3)'] as const;
      for (let run = 0; run < options.runs; run++) {
        for (const variant of run % 2 === 0 ? variants : [...variants].reverse()) {
          await settle();
          const dir = variant === 'file system' ? mkdtempSync(join(tmpdir(), 'weir-bench-ha-')) : `nats-obj://weir-bench/run-${run}`;
          try {
            const probe = new Probe({ prefill: keys, markEvery: 65_536 });
            const start = performance.now();
            const master = await createJobMaster({
              job: keyedSumJob({ keys, records, shape: 'sum' }, probe),
              config: { 'execution.checkpointing.interval': '1 s', 'execution.checkpointing.dir': dir, 'high-availability.nats.servers': cluster.servers },
            });
            const result = await master.run();
            const wallMs = performance.now() - start;
            if (result.status !== 'FINISHED') throw new Error(`the ${variant} job ended ${result.status}: ${result.error?.message}`);
            const done = master.checkpoints.stats.history().filter((s) => s.status === 'COMPLETED');
            const sample: Sample = {
              run,
              variant,
              wallMs,
              checkpoints: done.length,
              stateBytes: max(done.map((s) => s.stateSize)),
              durationMs: done.map((s) => s.endToEndDuration),
              asyncMs: done.map((s) => max(s.subtasks.map((t) => t.asyncMs))),
            };
            samples.push(sample);
            options.log(`run ${run + 1}/${options.runs} ${variant}: ${sample.checkpoints} checkpoints, median ${fmtMs(median(sample.durationMs))}, ${fmtNumber(records / (wallMs / 1000))} rec/s`);
          } finally {
            if (variant === 'file system') rmSync(dir, { recursive: true, force: true });
          }
        }
      }
    } finally {
      await cluster.stop();
    }
    const of = (v: Sample['variant']) => samples.filter((s) => s.variant === v);
    const row = (v: Sample['variant']) => {
      const ss = of(v);
      const durations = ss.flatMap((s) => s.durationMs);
      const asyncs = ss.flatMap((s) => s.asyncMs);
      return [v, fmtNumber(durations.length), (max(ss.map((s) => s.stateBytes)) / (1024 * 1024)).toFixed(1), fmtMs(median(durations)), fmtMs(max(durations)), fmtMs(median(asyncs)), fmtMs(max(asyncs)), fmtNumber(median(ss.map((s) => records / (s.wallMs / 1000))))];
    };
    const fs = median(of('file system').flatMap((s) => s.durationMs));
    const obj = median(of('nats-obj (R3)').flatMap((s) => s.durationMs));
    return {
      table: { columns: ['storage', 'checkpoints', 'state MB', 'duration (med)', 'duration (max)', 'async (med)', 'async (max)', 'records/s (med)'], rows: [row('file system'), row('nats-obj (R3)')] },
      notes: [
        `${fmtNumber(keys)} keys, ${fmtNumber(records)} records, checkpoints every 1 s, ${options.runs} runs per variant in rotating order, NATS ${cluster.version} on loopback`,
        `median checkpoint duration: object store ${fmtMs(obj)} vs file system ${fmtMs(fs)} (x${(obj / fs).toFixed(2)}); the object store's part is the upload of each state file (256 KiB chunks, each acknowledged after replication to 2 of 3 nodes) and of _metadata`,
      ],
      data: { keys, records, samples },
    };
  },
};
