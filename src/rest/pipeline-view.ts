// GET /jobs/:id/pipeline (weir's own): a pipeline's source tables as its operators report them.
// The CDC reader's per-table figures (`cdc_table_<figure>:<table>`, the CDC card's), the
// transform's routes and last schema changes (pipeline-figures.ts), the committing sink's held
// schema changes (`schema_changes_held:<sink table>`) and a database sink writer's outcome of each
// source table's last change (schema-change-figures.ts), summed or merged over the subtasks.
import type { JobMaster } from '../coordinator/job-master.ts';
import { ROUTE_FIGURE, SCHEMA_CHANGE_FIGURE, TRANSFORM_ROUTE_UID } from '../pipeline/pipeline-figures.ts';
import type { TaskMetrics } from '../rpc/job-master-gateway.ts';
import type { PipelineSchemaChangeView, PipelineSnapshotView, PipelineTableView, PipelineView } from './rest-views.ts';
import { APPLIED_FIGURE, OUTCOMES_FIGURE, SKIPPED_FIGURE } from '../connectors/database-sink/schema-change-figures.ts';
import { HELD_FIGURE } from '../worker/sink/schema-change-hold.ts';

/** What the view is made of: the subtasks' reports and the split enumerators' figures. */
export type PipelineFigures = Pick<JobMaster, 'taskMetrics' | 'sourceCoordinatorMetrics'>;

const TABLE_PREFIX = 'cdc_table_';

/** The pipeline view of a job: undefined when it is not a pipeline (no transform-and-route operator). */
export function pipelineView(m: PipelineFigures & Pick<JobMaster, 'graph'>): PipelineView | undefined {
  if (!isPipeline(m.graph)) return undefined;
  return pipelineViewOf(m.taskMetrics(), m.sourceCoordinatorMetrics());
}

export function isPipeline(graph: Pick<JobMaster['graph'], 'vertices'>): boolean {
  return graph.vertices.some((v) => v.operators.some((o) => o.uid === TRANSFORM_ROUTE_UID));
}

export function pipelineViewOf(tasks: readonly TaskMetrics[], enumerators: Record<string, Record<string, number>>): PipelineView {
  const sums = new FigureSums();
  for (const task of tasks) sums.add(task);
  return { 'reported-at': Math.round(sums.reportedAt), snapshot: snapshotOf(enumerators), tables: [...sums.tables.keys()].sort().map((name) => sums.table(name)) };
}

interface TableSums {
  readonly figures: Record<string, number>;
  readonly sinks: Set<string>;
  change: { readonly kind: string; readonly at: number } | null;
}

/** The figures of every subtask's report, per source table and per sink table. */
class FigureSums {
  readonly tables = new Map<string, TableSums>();
  /** Sink tables holding a schema change. */
  readonly #held = new Set<string>();
  /** Per source table, the newest outcome a database sink reported. */
  readonly #outcomes = new Map<string, { readonly applied: boolean; readonly at: number }>();
  /** A database sink reports outcomes at all. */
  #reports = false;
  reportedAt = 0;

  add(task: TaskMetrics): void {
    this.reportedAt = Math.max(this.reportedAt, task.reportedAt);
    for (const [key, value] of Object.entries(task.source ?? {})) {
      const s = subject(key);
      if (!s || !s.figure.startsWith(TABLE_PREFIX)) continue;
      const figures = this.#of(s.subject).figures;
      const name = s.figure.slice(TABLE_PREFIX.length);
      figures[name] = (figures[name] ?? 0) + value;
    }
    for (const o of task.operators ?? []) for (const [key, value] of Object.entries(o.figures ?? {})) this.#operatorFigure(o.uid === TRANSFORM_ROUTE_UID, key, value);
  }

  table(name: string): PipelineTableView {
    const t = this.tables.get(name)!;
    const n = (f: string) => t.figures[f] ?? 0;
    // A sink table without a namespace is `.table` in the figures.
    const sinks = [...t.sinks].map((s) => ({ key: s, name: s.startsWith('.') ? s.slice(1) : s })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const held = sinks.some((s) => this.#held.has(s.key));
    return {
      table: name,
      'snapshot-rows': n('snapshot_rows'),
      inserts: n('inserts'),
      updates: n('updates'),
      deletes: n('deletes'),
      changes: n('inserts') + n('updates') + n('deletes'),
      'sink-tables': sinks.map((s) => s.name),
      'last-schema-change': t.change && { ...t.change, state: changeState(t.change.at, held, this.#outcomes.get(name), this.#reports) },
    };
  }

  #operatorFigure(transform: boolean, key: string, value: number): void {
    if (key === OUTCOMES_FIGURE) this.#reports = true;
    const s = subject(key);
    if (!s) return;
    if (s.figure === HELD_FIGURE && value > 0) this.#held.add(s.subject);
    if ((s.figure === APPLIED_FIGURE || s.figure === SKIPPED_FIGURE) && (this.#outcomes.get(s.subject)?.at ?? -Infinity) <= value) this.#outcomes.set(s.subject, { applied: s.figure === APPLIED_FIGURE, at: value });
    if (!transform) return;
    if (s.figure === ROUTE_FIGURE) {
      const at = s.subject.indexOf('>');
      if (at > 0) this.#of(s.subject.slice(0, at)).sinks.add(s.subject.slice(at + 1));
    } else if (s.figure.startsWith(SCHEMA_CHANGE_FIGURE)) {
      // The subtask owning the table's key sees its changes; should two report one, the newest wins.
      const t = this.#of(s.subject);
      if (!t.change || t.change.at <= value) t.change = { kind: s.figure.slice(SCHEMA_CHANGE_FIGURE.length).replace(/_/g, '.'), at: value };
    }
  }

  #of(name: string): TableSums {
    let t = this.tables.get(name);
    if (!t) this.tables.set(name, (t = { figures: {}, sinks: new Set(), change: null }));
    return t;
  }
}

/**
 * held: a sink table it goes to holds a schema change (its rows wait behind it too); then what a
 * database sink did with a change at least as new; pending: a database sink has not had it yet;
 * sent: a sink that does not report (files and print write it as a line if its kind is kept,
 * Kafka and JetStream write no schema change).
 */
function changeState(at: number, held: boolean, outcome: { applied: boolean; at: number } | undefined, reports: boolean): PipelineSchemaChangeView['state'] {
  if (held) return 'held';
  if (outcome && outcome.at >= at) return outcome.applied ? 'applied' : 'skipped';
  return reports ? 'pending' : 'sent';
}

/** The first enumerator with snapshot figures (a pipeline has one source). */
function snapshotOf(enumerators: Record<string, Record<string, number>>): PipelineSnapshotView | null {
  const e = Object.values(enumerators).find((f) => f['snapshot_done'] !== undefined);
  if (!e) return null;
  const done = e['snapshot_done'] === 1;
  const tables = e['snapshot_tables'] ?? 0;
  return { tables, 'tables-done': done ? tables : (e['snapshot_tables_done'] ?? 0), rows: e['snapshot_rows_read'] ?? 0, done };
}

/** `figure:subject` -> its parts; undefined for a figure without a subject. */
function subject(key: string): { figure: string; subject: string } | undefined {
  const at = key.indexOf(':');
  return at < 0 ? undefined : { figure: key.slice(0, at), subject: key.slice(at + 1) };
}
