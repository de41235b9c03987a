import { Gauge, Histogram, type Registry } from 'prom-client';
import type { CheckpointStats } from '../coordinator/checkpoint-stats.ts';
import type { JobMaster } from '../coordinator/job-master.ts';
import type { Stoppable } from '../lifecycle/service.ts';
import type { JobDirectory } from './job-directory.ts';
import { collectedFamily, type Labels } from './collected-family.ts';
import { JOB_FIGURES, OPERATOR_FIGURES, TASK_FIGURES, TASKMANAGER_FIGURES, type Figure } from './metric-figures.ts';
import { taskManagerStateRows, type TaskManagerStateRow } from './task-manager-state.ts';
import { operatorRows, reportedTaskRows, type JobRow, type OperatorRow, type TaskRow } from './metric-rows.ts';

/** Checkpoints take from milliseconds (a small state) to minutes (a large one to slow storage). */
const DURATION_BUCKETS_S = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

/** Stopping it stops following checkpoint completions. */
export interface WeirMetrics extends Stoppable {
  /** Registers the source and operator figures that appeared since the last scrape (their names are the sources' and operators' own). */
  discoverSourceFigures(): void;
}

const JOB = ['job_id'];
const SUBTASK = ['job_id', 'vertex', 'subtask'];
const OPERATOR = [...SUBTASK, 'operator'];

/**
 * weir's own metric names (as before the Flink names came), derived from the figures of
 * metric-figures.ts that have one: counters named `_total`, seconds and bytes in the name, labels
 * `job_id`, `vertex` and `subtask`. Besides them, weir's alone: the sources' own figures as
 * `weir_source_*` (split enumerator) and `weir_source_reader_*` (reader subtasks), and a histogram
 * of checkpoint durations.
 */
export function registerWeirMetrics(registry: Registry, jobs: JobDirectory): WeirMetrics {
  const taskLabels = (r: TaskRow): Labels => ({ job_id: r.m.jobId, vertex: r.vertex?.name ?? r.vertexId, subtask: String(r.subtask) });
  const tasks = () => jobs.list().flatMap((m) => reportedTaskRows(m).map((r) => [taskLabels(r), r] as const));
  register<JobRow>(registry, JOB_FIGURES, JOB, () => jobs.list().map((m) => [{ job_id: m.jobId }, { m }] as const));
  register<TaskRow>(registry, TASK_FIGURES, SUBTASK, tasks);
  register<OperatorRow>(registry, OPERATOR_FIGURES, OPERATOR, () => tasks().flatMap(([labels, task]) => operatorRows(task).map((r) => [{ ...labels, operator: r.o.uid }, r] as const)));
  register<TaskManagerStateRow>(registry, TASKMANAGER_FIGURES, ['taskmanager'], () => taskManagerStateRows(jobs.list()).map((r) => [{ taskmanager: r.id }, r] as const));
  const durations = checkpointDurations(registry, jobs);
  return {
    discoverSourceFigures() {
      durations.follow();
      discoverSourceFigures(registry, jobs);
      discoverOperatorFigures(registry, jobs);
    },
    stop: async () => durations.unfollow(),
  };
}

function register<Row>(registry: Registry, figures: ReadonlyArray<Figure<Row>>, labelNames: readonly string[], rows: () => ReadonlyArray<readonly [Labels, Row]>): void {
  for (const { weir, value } of figures) {
    if (!weir) continue;
    const write = weir.write ?? ((v) => v);
    collectedFamily(registry, weir.type, weir.name, weir.help, labelNames, () =>
      rows().flatMap(([labels, row]) => {
        const v = write(value(row), row);
        return v === undefined ? [] : [[labels, v] as const];
      }),
    );
  }
}

/**
 * One series per job; completions are observed as they happen, those in the history when the
 * REST server started count too. A JobManager process gets jobs while it serves: each is followed
 * from the first scrape that sees it.
 */
function checkpointDurations(registry: Registry, jobs: JobDirectory) {
  const durations = new Histogram({ name: 'weir_checkpoint_duration_seconds', help: 'End-to-end durations of completed checkpoints and savepoints.', labelNames: JOB, buckets: DURATION_BUCKETS_S, registers: [registry] });
  const observe = (m: JobMaster) => (s: CheckpointStats) => durations.observe({ job_id: m.jobId }, s.endToEndDuration / 1000);
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
  return {
    follow,
    unfollow: () => {
      for (const stop of followed.values()) stop();
    },
  };
}

/** Figures of sources with a split enumerator (e.g. CDC snapshot progress) and of their readers, named after them. */
function sourceFigures(jobs: JobDirectory) {
  return jobs.list().flatMap((m) => {
    const vertexName = (id: string) => m.graph.vertices.find((v) => v.id === id)?.name ?? id;
    const enumerators = Object.entries(m.sourceCoordinatorMetrics()).flatMap(([vertexId, figures]) =>
      Object.entries(figures).map(([name, value]) => ({ family: familyName(name), reader: false, labels: { job_id: m.jobId, vertex: vertexName(vertexId) } as Labels, value })),
    );
    const readers = m.taskMetrics().flatMap((t) =>
      Object.entries(t.source ?? {}).map(([key, value]) => {
        // `figure:subject` (a CDC reader's per-table figures, e.g. `cdc_table_inserts:app.orders`): the subject is the `table` label.
        const at = key.indexOf(':');
        const name = at < 0 ? key : key.slice(0, at);
        const labels: Labels = { job_id: m.jobId, vertex: vertexName(t.vertexId), subtask: String(t.subtask), ...(at < 0 ? {} : { table: key.slice(at + 1) }) };
        return { family: familyName(`reader_${name}`), reader: true, labels, value };
      }),
    );
    return [...enumerators, ...readers];
  });
}

function discoverSourceFigures(registry: Registry, jobs: JobDirectory): void {
  for (const figure of sourceFigures(jobs)) {
    if (registry.getSingleMetric(figure.family)) continue;
    const family = figure.family;
    new Gauge({
      name: family,
      help: figure.reader ? "Reported by a source's reader subtask (for CDC: rows emitted, binlog lag)." : "Reported by a source's split enumerator (for CDC: snapshot progress).",
      labelNames: 'table' in figure.labels ? [...SUBTASK, 'table'] : SUBTASK,
      registers: [registry],
      collect() {
        this.reset();
        for (const f of sourceFigures(jobs)) if (f.family === family) this.set(f.labels, Number.isFinite(f.value) ? f.value : 0);
      },
    });
  }
}

/**
 * Operators' own figures (a pipeline's routes and schema changes, a sink's held changes), as
 * `weir_operator_<figure>`; a `figure:subject` figure's subject is the `subject` label.
 */
function operatorFigures(jobs: JobDirectory) {
  return jobs.list().flatMap((m) => {
    const vertexName = (id: string) => m.graph.vertices.find((v) => v.id === id)?.name ?? id;
    return m.taskMetrics().flatMap((t) =>
      (t.operators ?? []).flatMap((o) =>
        Object.entries(o.figures ?? {}).map(([key, value]) => {
          const at = key.indexOf(':');
          const labels: Labels = { job_id: m.jobId, vertex: vertexName(t.vertexId), subtask: String(t.subtask), operator: o.uid, ...(at < 0 ? {} : { subject: key.slice(at + 1) }) };
          return { family: `weir_operator_${(at < 0 ? key : key.slice(0, at)).replace(/[^a-zA-Z0-9_]/g, '_')}`, labels, value };
        }),
      ),
    );
  });
}

function discoverOperatorFigures(registry: Registry, jobs: JobDirectory): void {
  for (const figure of operatorFigures(jobs)) {
    if (registry.getSingleMetric(figure.family)) continue;
    const family = figure.family;
    const withSubject = 'subject' in figure.labels;
    new Gauge({
      name: family,
      help: "Reported by an operator (a pipeline's routes and last schema changes, a sink's held schema changes).",
      labelNames: withSubject ? [...OPERATOR, 'subject'] : OPERATOR,
      registers: [registry],
      collect() {
        this.reset();
        // A figure's labels are those its family was registered with (with or without a subject).
        for (const f of operatorFigures(jobs)) if (f.family === family && 'subject' in f.labels === withSubject) this.set(f.labels, Number.isFinite(f.value) ? f.value : 0);
      },
    });
  }
}

function familyName(figure: string): string {
  return `weir_source_${figure.replace(/[^a-zA-Z0-9_]/g, '_')}`;
}
