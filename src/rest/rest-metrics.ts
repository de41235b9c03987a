import type { JobMaster } from '../coordinator/job-master.ts';
import type { JobVertex } from '../graph/job-graph.ts';
import { JOB_FIGURES, OPERATOR_FIGURES, TASK_FIGURES, type Figure } from './metric-figures.ts';
import { operatorRows, taskRow } from './metric-rows.ts';

type Metrics = Record<string, number | string>;

/** The figures of a row the REST metric query serves, under their REST ids, as Flink's REST API writes them. */
function restMetrics<Row>(figures: ReadonlyArray<Figure<Row>>, row: Row, prefix = ''): Metrics {
  const out: Metrics = {};
  for (const { flink, rest, value } of figures) {
    if (!rest) continue;
    const v = (rest.value ?? value)(row);
    const written = rest.write ? rest.write(v) : flink?.write ? flink.write(v) : v;
    if (written !== undefined) out[`${prefix}${rest.id ?? flink?.name}`] = written;
  }
  return out;
}

/** One subtask's metrics under Flink's names (operators' as `<operator name>.<metric>`, a source reader's own figures as `source.<name>`). */
export function subtaskMetrics(m: JobMaster, v: JobVertex, i: number): Metrics {
  const task = taskRow(m, v.id, i);
  return {
    ...restMetrics(TASK_FIGURES, task),
    ...Object.assign({}, ...operatorRows(task).map((o) => restMetrics(OPERATOR_FIGURES, o, `${o.o.name}.`))),
    ...Object.fromEntries(Object.entries(task.t?.source ?? {}).map(([k, value]) => [`source.${k}`, value])),
  };
}

/** GET /jobs/:id/vertices/:vid/metrics: every subtask's metrics, as Flink names them (`<subtask>.<metric>`). */
export function vertexMetrics(m: JobMaster, v: JobVertex): Metrics {
  const all: Metrics = {};
  for (let i = 0; i < v.parallelism; i++) for (const [k, value] of Object.entries(subtaskMetrics(m, v, i))) all[`${i}.${k}`] = value;
  return all;
}

/** The job-level metrics of GET /jobs/:id/metrics and GET /jobs/metrics, under Flink's names. */
export function jobMetrics(m: JobMaster): Metrics {
  return restMetrics(JOB_FIGURES, { m });
}
