// @ts-check
// A pipeline's source tables (GET /jobs/:id/pipeline, for jobs of `weir pipeline FILE`): per table
// the rows its snapshot read, the changes read from the log per second and in all, the sink tables
// its routes send it to, and its last schema change with when the source committed it and whether
// a sink table holds it (a database sink applies a change only once the transactions before it
// have committed) or has it.
import { h } from '../dom.js';
import { count, rate, time } from '../format.js';
/** @import { PipelineView } from '../../src/rest/rest-views.ts' */

/**
 * @param {PipelineView} view
 * @param {(table: string) => number | null} changesPerSecond
 */
export function pipelineCard(view, changesPerSecond) {
  const s = view.snapshot;
  const summary = s
    ? `${count(s['tables-done'])} of ${count(s.tables)} ${s.tables === 1 ? 'table' : 'tables'} snapshotted${s.done ? '' : ' (snapshot running)'} · ${count(s.rows)} snapshot rows`
    : `${count(view.tables.length)} ${view.tables.length === 1 ? 'table' : 'tables'}`;
  return h(
    'section',
    { class: 'card pipeline-tables', 'data-key': 'pipeline', 'aria-label': 'Pipeline tables' },
    h('h2', null, 'Pipeline ', s ? h('span', { class: `badge ${s.done ? 'phase-binlog' : 'phase-snapshot'}` }, s.done ? 'SNAPSHOT DONE · CHANGES' : 'SNAPSHOT') : null),
    h('p', { class: 'pipeline-summary muted' }, summary),
    h(
      'table',
      { class: 'table pipeline-table-list' },
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          h('th', null, 'Source table'),
          h('th', { class: 'num', title: 'rows the snapshot read' }, 'Snapshot rows'),
          h('th', { class: 'num', title: 'inserts, updates and deletes read from the log, per second' }, 'Changes/s'),
          h('th', { class: 'num', title: 'inserts, updates and deletes read from the log' }, 'Changes'),
          h('th', { title: 'where its routes send its rows' }, 'Sink tables'),
          h('th', { title: 'its last schema change: kind, when the source committed it, and whether a sink table holds it until the transactions before it commit' }, 'Last schema change'),
        ),
      ),
      h(
        'tbody',
        null,
        view.tables.map((t) => {
          const c = t['last-schema-change'];
          return h(
            'tr',
            { 'data-key': `pipeline-table:${t.table}`, 'data-table': t.table },
            h('td', null, t.table),
            h('td', { class: 'num', 'data-figure': 'snapshot-rows' }, count(t['snapshot-rows'])),
            h('td', { class: 'num', 'data-figure': 'changes-per-second' }, rate(changesPerSecond(t.table))),
            h('td', { class: 'num', 'data-figure': 'changes' }, count(t.changes)),
            h('td', { 'data-figure': 'sink-tables' }, t['sink-tables'].join(', ') || '–'),
            h(
              'td',
              { 'data-figure': 'last-schema-change', 'data-kind': c?.kind ?? null, 'data-state': c?.state ?? null },
              c ? [h('code', null, c.kind), ` at ${time(c.at)} `, h('span', { class: `badge schema-${c.state}` }, c.state.toUpperCase())] : '–',
            ),
          );
        }),
      ),
    ),
  );
}
