import type { JobMaster } from '../coordinator/job-master.ts';

/** GET /metrics: the JobManager's figures in the Prometheus text format (version 0.0.4). */
export function prometheusMetrics(masters: readonly JobMaster[]): string {
  const lines: string[] = [];
  const family = (name: string, type: 'counter' | 'gauge', help: string, samples: Array<[Record<string, string>, number]>) => {
    lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    for (const [labels, value] of samples) {
      const l = Object.entries(labels)
        .map(([k, v]) => `${k}="${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`)
        .join(',');
      lines.push(`${name}{${l}} ${Number.isFinite(value) ? value : 0}`);
    }
  };
  const per = <T>(f: (m: JobMaster) => T) => masters.map((m) => [{ job_id: m.jobId }, f(m)] as [Record<string, string>, T]);
  family('weir_job_uptime_seconds', 'gauge', 'Seconds since the job started.', per((m) => (Date.now() - m.startedAt) / 1000));
  family('weir_job_running', 'gauge', '1 while the job is RUNNING.', per((m) => (m.status === 'RUNNING' ? 1 : 0)));
  family('weir_job_restarts_total', 'counter', 'Restarts of the job.', per((m) => m.restarts));
  const counts = (f: (c: JobMaster['checkpoints']['stats']['counts']) => number) => per((m) => f(m.checkpoints.stats.counts));
  family('weir_checkpoints_total', 'counter', 'Checkpoints triggered.', counts((c) => c.total));
  family('weir_checkpoints_completed_total', 'counter', 'Checkpoints completed.', counts((c) => c.completed));
  family('weir_checkpoints_failed_total', 'counter', 'Checkpoints failed (expired or declined).', counts((c) => c.failed));
  family('weir_checkpoints_in_progress', 'gauge', 'Checkpoints in flight.', counts((c) => c.inProgress));
  family('weir_checkpoints_restored_total', 'counter', 'Restores from a checkpoint or savepoint.', counts((c) => c.restored));
  const last = (m: JobMaster) => [...m.checkpoints.stats.history()].reverse().find((s) => s.status === 'COMPLETED');
  family('weir_last_checkpoint_duration_seconds', 'gauge', 'End-to-end duration of the latest completed checkpoint.', per((m) => (last(m)?.endToEndDuration ?? 0) / 1000));
  family('weir_last_checkpoint_size_bytes', 'gauge', 'State size of the latest completed checkpoint.', per((m) => last(m)?.stateSize ?? 0));
  family('weir_last_checkpoint_persisted_bytes', 'gauge', 'In-flight data persisted by the latest completed checkpoint.', per((m) => last(m)?.persistedData ?? 0));
  const tasks = masters.flatMap((m) =>
    m.taskMetrics().map((t) => {
      const v = m.graph.vertices.find((x) => x.id === t.vertexId);
      return { labels: { job_id: m.jobId, vertex: v?.name ?? t.vertexId, subtask: String(t.subtask) }, t };
    }),
  );
  family('weir_task_records_in_total', 'counter', 'Records taken in by a subtask (for sources: read).', tasks.map((x) => [x.labels, x.t.recordsIn]));
  family('weir_task_records_out_total', 'counter', 'Records sent downstream by a subtask.', tasks.map((x) => [x.labels, x.t.recordsOut]));
  family('weir_task_backpressured_seconds_total', 'counter', 'Time a subtask was blocked on its outputs (backpressure).', tasks.map((x) => [x.labels, x.t.backpressure / 1000]));
  // Figures of sources with a split enumerator (e.g. CDC snapshot progress) and of their readers.
  const sourceFamily = (samples: Array<[Record<string, string>, string, number]>, help: string) => {
    const byName = new Map<string, Array<[Record<string, string>, number]>>();
    for (const [labels, name, value] of samples) {
      const family = `weir_source_${name.replace(/[^a-zA-Z0-9_]/g, '_')}`;
      if (!byName.has(family)) byName.set(family, []);
      byName.get(family)!.push([labels, value]);
    }
    for (const [name, s] of byName) family(name, 'gauge', help, s);
  };
  sourceFamily(
    masters.flatMap((m) =>
      Object.entries(m.sourceCoordinatorMetrics()).flatMap(([vertexId, figures]) => {
        const vertex = m.graph.vertices.find((v) => v.id === vertexId)?.name ?? vertexId;
        return Object.entries(figures).map(([name, value]) => [{ job_id: m.jobId, vertex }, name, value] as [Record<string, string>, string, number]);
      }),
    ),
    "Reported by a source's split enumerator (for CDC: snapshot progress).",
  );
  sourceFamily(
    tasks.flatMap((x) => Object.entries(x.t.source ?? {}).map(([name, value]) => [x.labels, `reader_${name}`, value] as [Record<string, string>, string, number])),
    "Reported by a source's reader subtask (for CDC: rows emitted, binlog lag).",
  );
  return lines.join('\n') + '\n';
}
