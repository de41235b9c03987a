import type { JobMaster } from '../coordinator/job-master.ts';
import { describeActivity } from '../network/task-activity.ts';
import { isPipeline, pipelineViewOf } from '../rest/pipeline-view.ts';
import type { PipelineView } from '../rest/rest-views.ts';

/**
 * A live line on a terminal: job state, records in/out per second, checkpoints; for a pipeline its
 * tables (snapshotted of all, rows, changes per second, the last schema change). Nothing when not a TTY.
 */
export class ProgressLine {
  readonly #master: JobMaster;
  readonly #out: NodeJS.WriteStream;
  #timer: NodeJS.Timeout | undefined;
  #last = { at: performance.now(), readIn: 0, writtenOut: 0, changes: 0 };
  #shown = false;

  constructor(master: JobMaster, out: NodeJS.WriteStream = process.stderr) {
    this.#master = master;
    this.#out = out;
  }

  start(): void {
    if (!this.#out.isTTY) return;
    this.#timer = setInterval(() => this.#render(), 1000);
    this.#timer.unref();
  }

  /** Clears the line so that other output starts on a clean line. */
  clear(): void {
    if (this.#shown) this.#out.write('\r\x1b[2K');
    this.#shown = false;
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.clear();
  }

  #render(): void {
    const now = performance.now();
    const counts = this.#master.recordCounts();
    const secs = (now - this.#last.at) / 1000;
    const inRate = Math.max(0, (counts.readIn - this.#last.readIn) / secs);
    const outRate = Math.max(0, (counts.writtenOut - this.#last.writtenOut) / secs);
    const pipeline = isPipeline(this.#master.graph) ? pipelineViewOf(this.#master.taskMetrics(), this.#master.sourceCoordinatorMetrics()) : undefined;
    const changes = pipeline?.tables.reduce((n, t) => n + t.changes, 0) ?? 0;
    const changeRate = Math.max(0, (changes - this.#last.changes) / secs);
    this.#last = { at: now, ...counts, changes };
    const stats = this.#master.checkpoints.stats;
    const latest = stats.history().filter((s) => s.status === 'COMPLETED').at(-1);
    const cp = latest ? `  checkpoints ${stats.counts.completed} ok / ${stats.counts.failed} failed (last #${latest.id}, ${Math.round(latest.endToEndDuration)} ms)` : '';
    const restarts = this.#master.restarts > 0 ? `  restarts ${this.#master.restarts}` : '';
    const line = `${this.#master.status}${initializing(this.#master)}  in ${fmt(inRate)} rec/s  out ${fmt(outRate)} rec/s  total in ${fmt(counts.readIn)}${pipeline ? pipelineProgress(pipeline, changeRate) : sourceProgress(this.#master)}${cp}${restarts}`;
    this.#out.write(`\r\x1b[2K${line.slice(0, (this.#out.columns ?? 120) - 1)}`);
    this.#shown = true;
  }
}

/** Subtasks still starting (a long restore is legitimate, but never silent): how many, and what the first is doing. */
export function initializing(master: Pick<JobMaster, 'taskStatuses' | 'taskMetrics'>): string {
  const starting = master.taskStatuses().filter((t) => t.status === 'initializing');
  if (starting.length === 0) return '';
  const first = starting[0]!;
  const report = master.taskMetrics().find((m) => m.vertexId === first.vertexId && m.subtask === first.subtask);
  return ` (${starting.length}/${master.taskStatuses().length} subtasks initializing${report ? `: ${describeActivity(report, Date.now())}` : ''})`;
}

/** A CDC source's snapshot progress while it runs, then how far its binlog reader is behind. */
export function sourceProgress(master: Pick<JobMaster, 'sourceCoordinatorMetrics' | 'taskMetrics'>): string {
  const parts: string[] = [];
  for (const m of Object.values(master.sourceCoordinatorMetrics())) {
    if (m['snapshot_done'] !== 0 || m['snapshot_chunks_total'] === undefined) continue;
    const left = m['snapshot_seconds_left'] ?? -1;
    parts.push(
      `snapshot ${fmt(m['snapshot_chunks_finished'] ?? 0)}/${fmt(m['snapshot_chunks_total'])} chunks, ${fmt(m['snapshot_rows_read'] ?? 0)} rows, ${fmt(m['snapshot_rows_per_second'] ?? 0)} rows/s${left >= 0 ? `, ~${fmt(left)} s left` : ''}`,
    );
  }
  const lags = master.taskMetrics().flatMap((t) => (t.source?.['binlog_events'] !== undefined && t.source['binlog_events'] > 0 ? [t.source['binlog_lag_seconds'] ?? 0] : []));
  if (parts.length === 0 && lags.length > 0) parts.push(`binlog lag ${Math.max(...lags).toFixed(1)} s`);
  return parts.map((p) => `  ${p}`).join('');
}

/** A pipeline's tables: snapshotted of all and rows, then changes per second and in all, and the newest schema change. */
export function pipelineProgress(view: PipelineView, changesPerSecond: number): string {
  const s = view.snapshot;
  const snapshot = s ? `  tables ${fmt(s['tables-done'])}/${fmt(s.tables)} snapshotted${s.done ? '' : ' (snapshot running)'}, ${fmt(s.rows)} rows` : `  ${fmt(view.tables.length)} tables`;
  const changes = view.tables.reduce((n, t) => n + t.changes, 0);
  const newest = view.tables.flatMap((t) => (t['last-schema-change'] ? [{ table: t.table, ...t['last-schema-change'] }] : [])).sort((a, b) => b.at - a.at)[0];
  const schema = newest ? `  last schema change ${newest.kind} ${newest.table} at ${new Date(newest.at).toTimeString().slice(0, 8)} ${newest.state}` : '';
  return `${snapshot}  changes ${fmt(changesPerSecond)}/s (${fmt(changes)})${schema}`;
}

function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}
