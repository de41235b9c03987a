import { hostname } from 'node:os';
import type { Registry } from 'prom-client';
import type { JobMaster } from '../coordinator/job-master.ts';
import type { JobDirectory } from './job-directory.ts';
import { collectedFamily, type Labels } from './collected-family.ts';
import { jobSummary } from './job-views.ts';
import { JOB_FIGURES, JOBMANAGER_FIGURES, OPERATOR_FIGURES, TASK_FIGURES, TASKMANAGER_FIGURES, type Figure } from './metric-figures.ts';
import { taskManagerId, taskManagerStateRows, type TaskManagerStateRow } from './task-manager-state.ts';
import { operatorRows, reportedTaskRows, type JobRow, type OperatorRow, type TaskRow } from './metric-rows.ts';

/**
 * Flink's PrometheusReporter replaces what Prometheus does not allow in names, and by default in
 * label values too (`filterLabelValueCharacters`): `Source: numbers` is `Source:_numbers` there.
 */
const filtered = (value: string) => value.replace(/[^a-zA-Z0-9:_]/g, '_');

const JOB_LABELS = ['job_id', 'job_name', 'host'] as const;
const TASK_LABELS = ['job_id', 'job_name', 'task_id', 'task_name', 'task_attempt_id', 'task_attempt_num', 'subtask_index', 'tm_id', 'host'] as const;
const OPERATOR_LABELS = [...TASK_LABELS, 'operator_id', 'operator_name'] as const;

interface Scope<Row> {
  /** The logical scope as the reporter writes it: `flink_<scope>_<metric>`. */
  readonly name: string;
  readonly labelNames: readonly string[];
  readonly rows: () => ReadonlyArray<readonly [Labels, Row]>;
}

/**
 * The figures of metric-figures.ts under the names and labels Flink's Prometheus reporter gives
 * them, so dashboards made for Flink find them: `flink_<logical scope>_<metric>`, every figure a
 * gauge (the reporter exports counters and meters as gauges), labelled with the scope's variables,
 * one series per subtask attempt in the task scopes.
 */
export function registerFlinkMetrics(registry: Registry, jobs: JobDirectory): void {
  const host = filtered(hostname());
  const jobLabels = (m: JobMaster): Labels => ({ job_id: m.jobId, job_name: filtered(jobSummary(m).name), host });
  const taskLabels = (r: TaskRow): Labels => {
    const { m, vertexId, subtask } = r;
    const taskManager = m.taskStatuses().find((s) => s.vertexId === vertexId && s.subtask === subtask)?.taskManager;
    const { job_id, job_name } = jobLabels(m);
    return {
      job_id: job_id!,
      job_name: job_name!,
      task_id: vertexId,
      task_name: filtered(r.vertex?.name ?? vertexId),
      // Flink's ExecutionAttemptID prints as <graph>_<vertex>_<subtask>_<attempt>.
      task_attempt_id: `${m.jobId}_${vertexId}_${subtask}_${m.attempt}`,
      task_attempt_num: String(m.attempt),
      subtask_index: String(subtask),
      // The same as the TaskManager scope's, so a subtask's series join its TaskManager's.
      tm_id: filtered(taskManagerId(m, taskManager ?? 0)),
      host,
    };
  };
  const tasks = () => jobs.list().flatMap((m) => reportedTaskRows(m).map((r) => [taskLabels(r), r] as const));
  const operators = () =>
    tasks().flatMap(([labels, task]) => operatorRows(task).map((r) => [{ ...labels, operator_id: r.op?.operatorId ?? r.o.uid, operator_name: filtered(r.o.name) }, r] as const));

  register(registry, JOBMANAGER_FIGURES, { name: 'jobmanager', labelNames: ['host'], rows: () => [[{ host }, jobs.list()]] });
  register<JobRow>(registry, JOB_FIGURES, { name: 'jobmanager_job', labelNames: JOB_LABELS, rows: () => jobs.list().map((m) => [jobLabels(m), { m }] as const) });
  register<TaskRow>(registry, TASK_FIGURES, { name: 'taskmanager_job_task', labelNames: TASK_LABELS, rows: tasks });
  register<TaskManagerStateRow>(registry, TASKMANAGER_FIGURES, { name: 'taskmanager', labelNames: ['tm_id', 'host'], rows: () => taskManagerStateRows(jobs.list()).map((r) => [{ tm_id: filtered(r.id), host }, r] as const) });
  register<OperatorRow>(registry, OPERATOR_FIGURES, { name: 'taskmanager_job_task_operator', labelNames: OPERATOR_LABELS, rows: operators });
}

function register<Row>(registry: Registry, figures: ReadonlyArray<Figure<Row>>, scope: Scope<Row>): void {
  for (const { flink, value } of figures) {
    if (!flink) continue;
    const write = flink.write ?? ((v) => v);
    const samples = () =>
      scope.rows().flatMap(([labels, row]) => {
        const v = write(value(row));
        return v === undefined ? [] : [[labels, v] as const];
      });
    for (const name of flink.alias ? [flink.name, flink.alias] : [flink.name]) {
      collectedFamily(registry, 'gauge', `flink_${scope.name}_${name}`, `${name} (scope: ${scope.name}): ${flink.help}`, scope.labelNames, samples);
    }
  }
}
