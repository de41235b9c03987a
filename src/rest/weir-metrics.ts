import { Gauge, Histogram, type Registry } from 'prom-client';
import type { CheckpointStats } from '../coordinator/checkpoint-stats.ts';
import type { JobMaster } from '../coordinator/job-master.ts';
import type { JobDirectory } from './job-directory.ts';
import { collectedFamily, type Labels } from './collected-family.ts';
import { decodeWatermark } from '../network/wire-watermark.ts';

/** Checkpoints take from milliseconds (a small state) to minutes (a large one to slow storage). */
const DURATION_BUCKETS_S = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

export interface WeirMetrics {
  /** Registers the source figures that appeared since the last scrape (their names are the sources' own). */
  discoverSourceFigures(): void;
  /** Stops following checkpoint completions. */
  close(): void;
}

/**
 * weir's own metric names (as before the Flink names came): counters named `_total`, seconds and
 * bytes in the name, labels `job_id`, `vertex` and `subtask`; with the sources' own figures as
 * `weir_source_*` (split enumerator) and `weir_source_reader_*` (reader subtasks), and a histogram
 * of checkpoint durations.
 */
export function registerWeirMetrics(registry: Registry, jobs: JobDirectory): WeirMetrics {
  const per = (f: (m: JobMaster) => number) => () => jobs.list().map((m) => [{ job_id: m.jobId }, f(m)] as const);
  const job = ['job_id'];
  collectedFamily(registry, 'gauge', 'weir_job_uptime_seconds', 'Seconds since the job started.', job, per((m) => (Date.now() - m.startedAt) / 1000));
  collectedFamily(registry, 'gauge', 'weir_job_running', '1 while the job is RUNNING.', job, per((m) => (m.status === 'RUNNING' ? 1 : 0)));
  collectedFamily(registry, 'counter', 'weir_job_restarts_total', 'Restarts of the job.', job, per((m) => m.restarts));
  const counts = (f: (c: JobMaster['checkpoints']['stats']['counts']) => number) => per((m) => f(m.checkpoints.stats.counts));
  collectedFamily(registry, 'counter', 'weir_checkpoints_total', 'Checkpoints triggered.', job, counts((c) => c.total));
  collectedFamily(registry, 'counter', 'weir_checkpoints_completed_total', 'Checkpoints completed.', job, counts((c) => c.completed));
  collectedFamily(registry, 'counter', 'weir_checkpoints_failed_total', 'Checkpoints failed (expired or declined).', job, counts((c) => c.failed));
  collectedFamily(registry, 'gauge', 'weir_checkpoints_in_progress', 'Checkpoints in flight.', job, counts((c) => c.inProgress));
  collectedFamily(registry, 'counter', 'weir_checkpoints_restored_total', 'Restores from a checkpoint or savepoint.', job, counts((c) => c.restored));
  collectedFamily(registry, 'gauge', 'weir_last_checkpoint_duration_seconds', 'End-to-end duration of the latest completed checkpoint.', job, per((m) => (m.checkpoints.stats.latestCompleted()?.endToEndDuration ?? 0) / 1000));
  collectedFamily(registry, 'gauge', 'weir_last_checkpoint_size_bytes', 'State size of the latest completed checkpoint.', job, per((m) => m.checkpoints.stats.latestCompleted()?.stateSize ?? 0));
  collectedFamily(registry, 'gauge', 'weir_last_checkpoint_persisted_bytes', 'In-flight data persisted by the latest completed checkpoint.', job, per((m) => m.checkpoints.stats.latestCompleted()?.persistedData ?? 0));

  const subtask = ['job_id', 'vertex', 'subtask'];
  const tasks = () =>
    jobs.list().flatMap((m) =>
      m.taskMetrics().map((t) => ({ labels: { job_id: m.jobId, vertex: m.graph.vertices.find((x) => x.id === t.vertexId)?.name ?? t.vertexId, subtask: String(t.subtask) }, t })),
    );
  const perTask = (f: (t: ReturnType<JobMaster['taskMetrics']>[number]) => number) => () => tasks().map((x) => [x.labels, f(x.t)] as const);
  collectedFamily(registry, 'counter', 'weir_task_records_in_total', 'Records taken in by a subtask (for sources: read).', subtask, perTask((t) => t.recordsIn));
  collectedFamily(registry, 'counter', 'weir_task_records_out_total', 'Records sent downstream by a subtask.', subtask, perTask((t) => t.recordsOut));
  collectedFamily(registry, 'counter', 'weir_task_backpressured_seconds_total', 'Time a subtask was blocked on its outputs (backpressure).', subtask, perTask((t) => t.backpressure / 1000));
  collectedFamily(registry, 'counter', 'weir_task_idle_seconds_total', 'Time a subtask had nothing to do (no input, its source had nothing yet).', subtask, perTask((t) => t.idle / 1000));
  collectedFamily(registry, 'counter', 'weir_task_bytes_in_total', 'Bytes of record buffers received from other threads (in-thread channels pass buffers without bytes: 0).', subtask, perTask((t) => t.bytesIn));
  // Event time: how far behind the wall clock a subtask's watermark is (none before its first watermark, nor at the end of input).
  collectedFamily(registry, 'gauge', 'weir_task_event_time_lag_seconds', "Wall clock minus the subtask's input watermark (a source's: its own), for subtasks with a watermark.", subtask, () =>
    tasks().flatMap((x) => {
      const wm = decodeWatermark(x.t.currentInputWatermark);
      return Number.isFinite(wm) ? [[x.labels, (Date.now() - wm) / 1000] as const] : [];
    }),
  );
  collectedFamily(registry, 'counter', 'weir_operator_late_records_dropped_total', 'Records a window operator dropped as too late for all their windows (no late-data side output).', [...subtask, 'operator'], () =>
    jobs.list().flatMap((m) =>
      m.taskMetrics().flatMap((t) => {
        const vertex = m.graph.vertices.find((x) => x.id === t.vertexId);
        return (t.operators ?? [])
          .filter((o) => vertex?.operators.some((x) => x.uid === o.uid && x.spec.kind === 'window'))
          .map((o) => [{ job_id: m.jobId, vertex: vertex?.name ?? t.vertexId, subtask: String(t.subtask), operator: o.uid }, o.numLateRecordsDropped] as const);
      }),
    ),
  );
  collectedFamily(registry, 'counter', 'weir_task_bytes_out_total', 'Bytes of record buffers sent to other threads (in-thread channels pass buffers without bytes: 0).', subtask, perTask((t) => t.bytesOut));

  // One series per job; completions are observed as they happen, those in the history when the
  // REST server started count too.
  const durations = new Histogram({ name: 'weir_checkpoint_duration_seconds', help: 'End-to-end durations of completed checkpoints and savepoints.', labelNames: job, buckets: DURATION_BUCKETS_S, registers: [registry] });
  const observe = (m: JobMaster) => (s: CheckpointStats) => durations.observe({ job_id: m.jobId }, s.endToEndDuration / 1000);
  // A JobManager process gets jobs while it serves: each is followed from the first scrape that sees it.
  const followed = new Map<JobMaster, () => void>();
  const follow = () => {
    for (const m of jobs.list()) {
      if (followed.has(m)) continue;
      durations.zero({ job_id: m.jobId });
      for (const s of m.checkpoints.stats.history()) if (s.status === 'COMPLETED') observe(m)(s);
      followed.set(m, m.checkpoints.stats.onCompleted(observe(m)));
    }
  };
  follow();

  // Figures of sources with a split enumerator (e.g. CDC snapshot progress) and of their readers.
  const sourceFigures = () =>
    jobs.list().flatMap((m) => {
      const vertexName = (id: string) => m.graph.vertices.find((v) => v.id === id)?.name ?? id;
      const enumerators = Object.entries(m.sourceCoordinatorMetrics()).flatMap(([vertexId, figures]) =>
        Object.entries(figures).map(([name, value]) => ({ family: familyName(name), reader: false, labels: { job_id: m.jobId, vertex: vertexName(vertexId) } as Labels, value })),
      );
      const readers = m.taskMetrics().flatMap((t) =>
        Object.entries(t.source ?? {}).map(([name, value]) => ({ family: familyName(`reader_${name}`), reader: true, labels: { job_id: m.jobId, vertex: vertexName(t.vertexId), subtask: String(t.subtask) } as Labels, value })),
      );
      return [...enumerators, ...readers];
    });
  return {
    discoverSourceFigures() {
      follow();
      for (const figure of sourceFigures()) {
        if (registry.getSingleMetric(figure.family)) continue;
        const family = figure.family;
        new Gauge({
          name: family,
          help: figure.reader ? "Reported by a source's reader subtask (for CDC: rows emitted, binlog lag)." : "Reported by a source's split enumerator (for CDC: snapshot progress).",
          labelNames: subtask,
          registers: [registry],
          collect() {
            this.reset();
            for (const f of sourceFigures()) if (f.family === family) this.set(f.labels, Number.isFinite(f.value) ? f.value : 0);
          },
        });
      }
    },
    close() {
      for (const stop of followed.values()) stop();
    },
  };
}

function familyName(figure: string): string {
  return `weir_source_${figure.replace(/[^a-zA-Z0-9_]/g, '_')}`;
}
