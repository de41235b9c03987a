import type { JobMaster } from '../coordinator/job-master.ts';
import type { TaskRates } from '../coordinator/task-rates.ts';
import type { JobVertex, ChainedOperator } from '../graph/job-graph.ts';
import type { OperatorFigures, TaskMetrics } from '../rpc/job-master-gateway.ts';

/** What the figures of the job scope are read from. */
export interface JobRow {
  readonly m: JobMaster;
}

/** One subtask of the running attempt: a Flink task. */
export interface TaskRow {
  readonly m: JobMaster;
  readonly vertexId: string;
  readonly vertex: JobVertex | undefined;
  readonly subtask: number;
  /** Undefined until the subtask reported (the REST views answer 0 then). */
  readonly t: TaskMetrics | undefined;
  readonly rates: TaskRates | undefined;
}

/** One chained operator of a subtask. */
export interface OperatorRow {
  readonly task: TaskRow;
  readonly o: OperatorFigures;
  readonly op: ChainedOperator | undefined;
  /** The operator that reads the source (the head of a source vertex). */
  readonly isSourceHead: boolean;
}

export function taskRow(m: JobMaster, vertexId: string, subtask: number, t = m.taskMetrics().find((x) => x.vertexId === vertexId && x.subtask === subtask)): TaskRow {
  return { m, vertexId, vertex: m.graph.vertices.find((v) => v.id === vertexId), subtask, t, rates: m.taskRates(vertexId, subtask) };
}

/** The subtasks that reported, as /metrics serves them (those of an earlier attempt are gone). */
export function reportedTaskRows(m: JobMaster): TaskRow[] {
  return m.taskMetrics().map((t) => taskRow(m, t.vertexId, t.subtask, t));
}

export function operatorRows(task: TaskRow): OperatorRow[] {
  const head = task.vertex?.operators[0]?.uid;
  return (task.t?.operators ?? []).map((o) => ({ task, o, op: task.vertex?.operators.find((x) => x.uid === o.uid), isSourceHead: task.vertex?.isSource === true && head === o.uid }));
}
