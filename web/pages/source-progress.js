// @ts-check
// Progress of sources whose split enumerator reports it (`source-progress` of a vertex in
// GET /jobs/:id), with their readers' figures per subtask (`source` of each subtask). A CDC
// source's initial snapshot shows as a bar of chunks finished out of the total, with rows read,
// rows per second and the time left; once the snapshot is done, its totals and what each subtask
// reads from the binlog, and per captured table its rows snapshotted, inserts, updates, deletes and
// schema changes. Figures the page does not know are listed as `name: value`.
import { h } from '../dom.js';
import { count, duration } from '../format.js';
/** @import { JobDetailsView, VertexView } from '../../src/rest/rest-views.ts' */

/** The snapshot figures of the split enumerator that this view writes in words. */
const SNAPSHOT_FIGURES = new Set([
  'snapshot_tables',
  'snapshot_tables_done',
  'snapshot_chunks_total',
  'snapshot_chunks_finished',
  'snapshot_chunks_in_flight',
  'snapshot_rows_read',
  'snapshot_rows_per_second',
  'snapshot_seconds_left',
  'snapshot_done',
]);

/**
 * A reader's figures as columns of the subtasks table, per phase.
 * @type {Record<'snapshot' | 'done', Array<{ name: string, label: string, title: string, format: (v: number) => string }>>}
 */
const READER_COLUMNS = {
  snapshot: [
    { name: 'snapshot_chunks_emitted', label: 'Chunks emitted', title: 'snapshot chunks this subtask read and sent on', format: count },
    { name: 'snapshot_rows_emitted', label: 'Rows emitted', title: 'snapshot rows this subtask sent on', format: count },
    { name: 'snapshot_changes_merged', label: 'Changes merged', title: 'binlog changes merged into chunks while they were read', format: count },
  ],
  done: [
    { name: 'snapshot_rows_emitted', label: 'Snapshot rows', title: 'snapshot rows this subtask sent on', format: count },
    { name: 'binlog_changes', label: 'Changes read', title: 'row changes read from the binlog', format: count },
    { name: 'binlog_events', label: 'Binlog events', title: 'binlog events read (changes, transactions, rotations…)', format: count },
    { name: 'binlog_lag_seconds', label: 'Lag', title: 'how far behind the commit time of the last change read this subtask is', format: (v) => seconds(v) },
    // PostgreSQL: the same figures of the WAL, and how much WAL the server keeps for the source's slot.
    { name: 'wal_changes', label: 'Changes read', title: 'row changes read from the WAL', format: count },
    { name: 'wal_events', label: 'WAL events', title: 'row changes of the WAL read (transactions aside)', format: count },
    { name: 'wal_lag_seconds', label: 'Lag', title: 'how far behind the commit time of the last change read this subtask is', format: (v) => seconds(v) },
    { name: 'wal_slot_lag_bytes', label: 'Slot lag', title: "WAL the server keeps for the replication slot beyond its confirmed LSN (confirmed a few checkpoints late)", format: bytes },
  ],
};
const TABLE_FIGURE_PREFIX = 'cdc_table_';
/** The per-table figures of CDC readers, as columns of the tables view. */
const TABLE_COLUMNS = [
  { name: 'snapshot_rows', label: 'Snapshot rows', title: 'rows the snapshot read' },
  { name: 'inserts', label: 'Inserts', title: 'inserts read from the log' },
  { name: 'updates', label: 'Updates', title: 'updates read from the log' },
  { name: 'deletes', label: 'Deletes', title: 'deletes read from the log' },
  { name: 'schema_changes', label: 'Schema changes', title: 'schema changes followed (DDL)' },
];
/** Schema changes followed and DDL not understood: in the log's summary line (when any), not as columns. */
const SCHEMA_FIGURES = ['cdc_schema_changes', 'binlog_ddl_unrecognized'];
const KNOWN_READER_FIGURES = new Set([...READER_COLUMNS.snapshot, ...READER_COLUMNS.done].map((c) => c.name).concat(SCHEMA_FIGURES));

/** A figure of unknown meaning: integers as counts, others with up to two decimals. @param {unknown} v */
function plain(v) {
  if (typeof v !== 'number') return String(v);
  return Number.isInteger(v) ? count(v) : v.toLocaleString('en-US', { maximumFractionDigits: 2 });
}

/** Bytes, `512 B`, `3.4 MB`. @param {number} n */
function bytes(n) {
  if (!Number.isFinite(n) || n < 0) return '–';
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n / 1024;
  let u = 0;
  for (; v >= 1024 && u < units.length - 1; u++) v /= 1024;
  return `${v.toFixed(1)} ${units[u]}`;
}

/** Seconds, `0.4 s`, `12 s`, `3m 05s`. @param {number} s */
function seconds(s) {
  if (!Number.isFinite(s) || s < 0) return '–';
  if (s < 10) return `${s.toFixed(1)} s`;
  if (s < 60) return `${Math.round(s)} s`;
  return duration(s * 1000);
}

/** The estimated time left, `~42 s left`, or null while unknown. @param {number | undefined} s */
function timeLeft(s) {
  if (s === undefined || !Number.isFinite(s) || s < 0) return null;
  if (s < 60) return `~${Math.max(1, Math.ceil(s))} s left`;
  return `~${duration(s * 1000)} left`;
}

/** A CDC reader's per-table figure, `cdc_table_<figure>:<db.table>`: the table view shows those. @param {string} name */
function isTableFigure(name) {
  return name.startsWith(TABLE_FIGURE_PREFIX) && name.includes(':');
}

/** `name: value` for each figure not in `known`. @param {Readonly<Record<string, unknown>> | undefined} figures @param {Set<string>} known */
function others(figures, known) {
  return Object.entries(figures ?? {})
    .filter(([name]) => !known.has(name) && !isTableFigure(name))
    .map(([name, value]) => h('span', { class: 'figure', 'data-figure': name }, `${name}: ${plain(value)}`));
}

/**
 * One card per source vertex that reports progress, in the order of the graph.
 * @param {JobDetailsView} job
 * @returns {HTMLElement[]}
 */
export function sourceProgressCards(job) {
  return job.vertices.flatMap((v) => (v['source-progress'] ? [sourceProgressCard(v, v['source-progress'])] : []));
}

/** @param {VertexView} v @param {Readonly<Record<string, number>>} p its `source-progress` */
function sourceProgressCard(v, p) {
  const isSnapshot = p['snapshot_done'] !== undefined;
  const done = p['snapshot_done'] === 1;
  const phase = !isSnapshot ? 'other' : done ? 'done' : 'snapshot';
  const badge = phase === 'snapshot' ? h('span', { class: 'badge phase-snapshot' }, 'SNAPSHOT') : phase === 'done' ? h('span', { class: 'badge phase-binlog' }, 'SNAPSHOT DONE · BINLOG') : null;
  const extra = others(p, isSnapshot ? SNAPSHOT_FIGURES : new Set());
  return h(
    'section',
    { class: 'card source-progress', 'data-key': `progress:${v.id}`, 'data-vertex': v.id, 'data-phase': phase, 'aria-label': `Progress of ${v.name}` },
    h('h2', null, v.name, ' ', badge),
    phase === 'snapshot' ? snapshotRunning(v, p) : phase === 'done' ? snapshotDone(v, p) : null,
    extra.length ? h('p', { class: 'figures muted' }, extra.flatMap((e, i) => (i ? [' · ', e] : [e]))) : null,
    readersTable(v, phase === 'snapshot' ? 'snapshot' : 'done'),
    tablesTable(v),
  );
}

/**
 * The CDC readers' per-table figures, summed over the subtasks: one row per captured table.
 * @param {VertexView} v
 */
function tablesTable(v) {
  /** @type {Map<string, Record<string, number>>} */
  const tables = new Map();
  for (const t of v.subtasks) {
    for (const [key, value] of Object.entries(t.source ?? {})) {
      if (!isTableFigure(key) || typeof value !== 'number') continue;
      const at = key.indexOf(':');
      const table = key.slice(at + 1);
      const figure = key.slice(TABLE_FIGURE_PREFIX.length, at);
      const row = tables.get(table) ?? {};
      row[figure] = (row[figure] ?? 0) + value;
      tables.set(table, row);
    }
  }
  if (tables.size === 0) return null;
  return h(
    'table',
    { class: 'table source-tables', 'aria-label': `Tables of ${v.name}` },
    h('thead', null, h('tr', null, h('th', null, 'Table'), TABLE_COLUMNS.map((c) => h('th', { class: 'num', title: c.title }, c.label)))),
    h(
      'tbody',
      null,
      [...tables.keys()].sort().map((name) =>
        h(
          'tr',
          { 'data-key': `table:${name}`, 'data-table': name },
          h('td', null, name),
          TABLE_COLUMNS.map((c) => h('td', { class: 'num', 'data-figure': c.name }, count(tables.get(name)?.[c.name] ?? 0))),
        ),
      ),
    ),
  );
}

/** @param {VertexView} v @param {Readonly<Record<string, number>>} p */
function snapshotRunning(v, p) {
  const finished = p['snapshot_chunks_finished'] ?? 0;
  // The total is an estimate from the key range until the last chunk is cut: never below what is done.
  const total = Math.max(p['snapshot_chunks_total'] ?? 0, finished);
  const max = Math.max(1, total);
  // Floored, so that 100% means every chunk.
  const pct = total > 0 ? Math.floor((finished / total) * 100) : 0;
  const left = timeLeft(p['snapshot_seconds_left']);
  const tables = p['snapshot_tables'];
  const tablesDone = p['snapshot_tables_done'];
  const inFlight = p['snapshot_chunks_in_flight'];
  const parts = [
    h('span', { class: 'chunks' }, `${count(finished)} of ${count(total)} chunks`),
    inFlight ? h('span', { class: 'in-flight' }, `${count(inFlight)} in flight`) : null,
    h('span', { class: 'rows' }, `${count(p['snapshot_rows_read'] ?? 0)} rows read`),
    p['snapshot_rows_per_second'] !== undefined ? h('span', { class: 'rate' }, `${count(p['snapshot_rows_per_second'])} rows/s`) : null,
    h('span', { class: left ? 'left' : 'left muted' }, left ?? 'time left not known yet'),
    tables !== undefined ? h('span', { class: 'tables muted' }, `${tablesDone !== undefined ? `${count(tablesDone)} of ` : ''}${count(tables)} ${tables === 1 ? 'table' : 'tables'}${tablesDone !== undefined ? ' snapshotted' : ''}`) : null,
  ].filter((x) => x !== null);
  return h(
    'div',
    { class: 'snapshot-running' },
    h(
      'div',
      { class: 'progress-row' },
      h('progress', {
        class: 'snapshot-bar',
        max,
        value: Math.min(finished, max),
        'aria-label': `Snapshot of ${v.name}: chunks finished`,
        'aria-valuetext': `${finished} of ${total} chunks (${pct}%)`,
      }),
      h('span', { class: 'progress-percent' }, `${pct}%`),
    ),
    h('p', { class: 'progress-text' }, parts.flatMap((e, i) => (i ? [' · ', e] : [e]))),
  );
}

/** @param {VertexView} v @param {Readonly<Record<string, number>>} p */
function snapshotDone(v, p) {
  const readers = v.subtasks.flatMap((t) => (t.source ? [t.source] : []));
  const wal = readers.some((r) => r['wal_changes'] !== undefined);
  const prefix = wal ? 'wal' : 'binlog';
  const changes = readers.reduce((n, r) => n + (r[`${prefix}_changes`] ?? 0), 0);
  const lags = readers.map((r) => r[`${prefix}_lag_seconds`]).filter((x) => typeof x === 'number');
  const slotLags = readers.map((r) => r['wal_slot_lag_bytes']).filter((x) => typeof x === 'number');
  const schemaChanges = readers.reduce((n, r) => n + (r['cdc_schema_changes'] ?? 0), 0);
  const unrecognized = readers.reduce((n, r) => n + (r['binlog_ddl_unrecognized'] ?? 0), 0);
  const rate = p['snapshot_rows_per_second'];
  return h(
    'div',
    { class: 'snapshot-finished' },
    h(
      'p',
      { class: 'snapshot-done' },
      h('span', { class: 'done-mark', 'aria-hidden': 'true' }, '✓ '),
      `snapshot done: ${count(p['snapshot_chunks_finished'] ?? 0)} chunks, ${count(p['snapshot_rows_read'] ?? 0)} rows`,
      rate !== undefined ? h('span', { class: 'muted' }, ` (${count(rate)} rows/s on average)`) : null,
    ),
    readers.length
      ? h(
          'p',
          { class: 'binlog-summary' },
          `${wal ? 'WAL' : 'Binlog'}: ${count(changes)} ${changes === 1 ? 'change' : 'changes'} read`,
          lags.length ? `, lag ${seconds(Math.max(...lags))}` : '',
          slotLags.length ? `, slot lag ${bytes(Math.max(...slotLags))}` : '',
          schemaChanges ? `, ${count(schemaChanges)} schema ${schemaChanges === 1 ? 'change' : 'changes'}` : '',
          unrecognized ? h('span', { class: 'ddl-unrecognized', title: 'DDL statements the parser did not understand: see the job log' }, `, ${count(unrecognized)} DDL not understood`) : '',
        )
      : null,
  );
}

/**
 * The readers' figures per subtask: the known ones of the phase as columns, any others as `name: value`.
 * @param {VertexView} v @param {'snapshot' | 'done'} phase
 */
function readersTable(v, phase) {
  if (!v.subtasks.some((t) => t.source)) return null;
  const columns = READER_COLUMNS[phase].filter((c) => v.subtasks.some((t) => t.source?.[c.name] !== undefined));
  const hasOthers = v.subtasks.some((t) => others(t.source, KNOWN_READER_FIGURES).length > 0);
  return h(
    'table',
    { class: 'table source-subtasks' },
    h(
      'thead',
      null,
      h(
        'tr',
        null,
        h('th', null, 'Subtask'),
        h('th', null, 'Status'),
        columns.map((c) => h('th', { class: 'num', title: c.title }, c.label)),
        hasOthers ? h('th', null, 'Other figures') : null,
      ),
    ),
    h(
      'tbody',
      null,
      v.subtasks.map((t) =>
        h(
          'tr',
          { 'data-key': String(t.subtask), 'data-subtask': t.subtask },
          h('td', null, `${t.subtask + 1}/${v.parallelism}`),
          h('td', null, t.status),
          columns.map((c) => {
            const value = t.source?.[c.name];
            return h('td', { class: 'num', 'data-figure': c.name }, typeof value === 'number' ? c.format(value) : '–');
          }),
          hasOthers ? h('td', { class: 'figures' }, others(t.source, KNOWN_READER_FIGURES).flatMap((e, i) => (i ? [', ', e] : [e]))) : null,
        ),
      ),
    ),
  );
}
