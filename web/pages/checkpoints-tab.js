// @ts-check
// A job's checkpoints: counts and the latest ones, a plot of duration and size over time, the
// history (click a row for its per-subtask figures), failures with their reasons, summary
// statistics and the checkpoint configuration.
import { api } from '../api.js';
import { h } from '../dom.js';
import { bytes, count, dateTime, duration, settingValue, time } from '../format.js';
import { timeChart } from '../chart.js';
/**
 * @import { CheckpointConfigView, CheckpointDetailsView, CheckpointsOverviewView, CheckpointSubtasksView, CheckpointView,
 *   JobDetailsView, StatisticsView } from '../../src/rest/rest-views.ts'
 * @typedef {{ d: CheckpointDetailsView, subtasks: Record<string, CheckpointSubtasksView> }} Detail a checkpoint with its vertices' subtasks
 */

/** How many checkpoints the page remembers while open (the JobManager keeps its last 100). */
const REMEMBERED = 1000;
/** The newest failures listed with their reasons. */
const FAILURES_SHOWN = 20;

/** @type {Map<string, Map<number, CheckpointView>>} the checkpoints seen, per job, while the page is open */
const seenPerJob = new Map();

/** @param {CheckpointView} c */
const isDone = (c) => c.status === 'COMPLETED' || c.status === 'FAILED';

/** How long a checkpoint took (to its failure, for failed ones). @param {CheckpointView} c */
const took = (c) => (c.status === 'FAILED' && c.failure_timestamp ? c.failure_timestamp - c.trigger_timestamp : c.end_to_end_duration);

/**
 * @param {string} jobId
 * @param {number | null} initial the checkpoint to show in detail
 */
export function checkpointsTab(jobId, initial) {
  /** @type {number | null} */
  let selected = initial;
  /** @type {CheckpointConfigView | null} */
  let config = null;
  /** Details of finished checkpoints never change: fetched once. @type {Map<number, Detail>} */
  const details = new Map();
  const seen = seenPerJob.get(jobId) ?? new Map();
  seenPerJob.set(jobId, seen);

  /** @param {number} cid @returns {Promise<Detail | { missing: true }>} */
  const loadDetails = async (cid) => {
    const cached = details.get(cid);
    if (cached) return cached;
    try {
      const d = await api.checkpoint(jobId, cid);
      const vertices = await Promise.all(Object.keys(d.tasks).map((vid) => api.checkpointSubtasks(jobId, cid, vid)));
      const result = { d, subtasks: Object.fromEntries(Object.keys(d.tasks).map((vid, i) => [vid, vertices[i]])) };
      if (isDone(d)) details.set(cid, result);
      return result;
    } catch (e) {
      if (/** @type {{ status?: number }} */ (e).status === 404) return { missing: true };
      throw e;
    }
  };

  return {
    /** @param {JobDetailsView} job */
    async refresh(job) {
      const [stats, cfg, detail] = await Promise.all([
        api.checkpoints(jobId),
        config ? Promise.resolve(config) : api.checkpointConfig(jobId),
        selected !== null ? loadDetails(selected) : Promise.resolve(null),
      ]);
      config = cfg;
      for (const c of stats.history) seen.set(c.id, c);
      while (seen.size > REMEMBERED) seen.delete(Math.min(...seen.keys()));
      const all = [...seen.values()].sort((a, b) => b.id - a.id);
      return [
        overviewCard(stats),
        chartCard(all, job.now),
        historyCard(stats.history, selected),
        selected !== null ? detailCard(selected, detail, job) : null,
        failuresCard(all),
        summaryCard(stats.summary),
        configCard(config),
      ];
    },
    /** @param {string} name @param {HTMLElement} el */
    action(name, el) {
      if (name === 'select-checkpoint') {
        const cid = Number(el.dataset.checkpoint);
        selected = selected === cid ? null : cid;
        history.replaceState(null, '', `#/jobs/${jobId}/checkpoints${selected === null ? '' : `/${selected}`}`);
      } else if (name === 'close-detail') {
        selected = null;
        history.replaceState(null, '', `#/jobs/${jobId}/checkpoints`);
      }
    },
  };
}

/** @param {CheckpointView} c */
function statusBadge(c) {
  return h('span', { class: `badge cp-${String(c.status).toLowerCase()}` }, c.status === 'IN_PROGRESS' ? 'IN PROGRESS' : c.status);
}

/** @param {CheckpointView} c */
function typeLabel(c) {
  if (c.is_savepoint) return h('span', { class: 'sp-marker', title: 'a savepoint' }, 'Savepoint');
  return h('span', { class: 'cp-type' }, c.unaligned ? 'Unaligned checkpoint' : 'Checkpoint');
}

/** @param {CheckpointsOverviewView} stats */
function overviewCard(stats) {
  const c = stats.counts;
  const tile = (/** @type {string} */ label, /** @type {number} */ n, /** @type {string} */ cls) =>
    h('div', { class: `tile ${cls}`, 'data-count': cls }, h('div', { class: 'tile-value' }, count(n)), h('div', { class: 'tile-label' }, label));
  const l = stats.latest;
  /**
   * @template {{ id: number }} X
   * @param {string} label @param {X | null} x @param {(x: X) => Array<Node | string>} more
   */
  const latestRow = (label, x, more) =>
    h('tr', { 'data-key': label }, h('th', null, label), x ? h('td', null, `#${x.id}`) : h('td', { class: 'muted' }, 'none'), x ? h('td', null, ...more(x)) : h('td', null));
  return h(
    'section',
    { class: 'card' },
    h('h2', null, 'Overview'),
    h(
      'div',
      { class: 'tiles' },
      tile('Triggered', c.total, 'total'),
      tile('In progress', c.in_progress, 'in-progress'),
      tile('Completed', c.completed, 'completed'),
      tile('Failed', c.failed, 'failed'),
      tile('Restored', c.restored, 'restored'),
    ),
    h(
      'table',
      { class: 'table latest' },
      h(
        'tbody',
        null,
        latestRow('Latest completed', l.completed, (x) => [`${dateTime(x.latest_ack_timestamp)} · ${duration(x.end_to_end_duration)} · ${bytes(x.checkpointed_size)} · `, h('code', null, x.external_path ?? '')]),
        latestRow('Latest savepoint', l.savepoint, (x) => [`${dateTime(x.latest_ack_timestamp)} · ${bytes(x.checkpointed_size)} · `, h('code', null, x.external_path ?? '')]),
        latestRow('Latest failed', l.failed, (x) => [`${dateTime(x.failure_timestamp)} · `, h('span', { class: 'reason' }, x.failure_message ?? '')]),
        latestRow('Latest restore', l.restored, (x) => [`${dateTime(x.restore_timestamp)} · from ${x.is_savepoint ? 'savepoint' : 'checkpoint'} `, h('code', null, x.external_path ?? '')]),
      ),
    ),
  );
}

/** @param {CheckpointView[]} all the checkpoints seen, newest first @param {number} now */
function chartCard(all, now) {
  /** @param {CheckpointView} c @param {number} v @param {string} what */
  const point = (c, v, what) => ({ t: c.trigger_timestamp, v, id: c.id, tip: `${c.is_savepoint ? 'Savepoint' : 'Checkpoint'} #${c.id} at ${time(c.trigger_timestamp)}: ${what}` });
  const completed = all.filter((c) => c.status === 'COMPLETED' && !c.is_savepoint);
  const savepoints = all.filter((c) => c.status === 'COMPLETED' && c.is_savepoint);
  const failed = all.filter((c) => c.status === 'FAILED');
  const from = Math.min(now - 10_000, ...all.map((c) => c.trigger_timestamp));
  return h(
    'section',
    { class: 'card chart-card' },
    h('h2', null, 'Duration and size over time'),
    h(
      'div',
      { class: 'charts' },
      timeChart({
        title: 'End-to-end duration',
        width: 640,
        height: 230,
        cls: 'duration-chart',
        from,
        to: now,
        yFormat: duration,
        series: [
          { name: 'checkpoint', cls: 'completed', marker: 'circle', line: true, points: completed.map((c) => point(c, c.end_to_end_duration, duration(c.end_to_end_duration))) },
          { name: 'savepoint', cls: 'savepoint', marker: 'diamond', points: savepoints.map((c) => point(c, c.end_to_end_duration, duration(c.end_to_end_duration))) },
          { name: 'failed', cls: 'failed', marker: 'cross', points: failed.map((c) => point(c, took(c), `failed after ${duration(took(c))}: ${c.failure_message ?? ''}`)) },
        ],
      }),
      timeChart({
        title: 'Checkpointed size',
        width: 640,
        height: 230,
        cls: 'size-chart',
        from,
        to: now,
        yFormat: bytes,
        series: [
          { name: 'checkpoint', cls: 'completed', marker: 'circle', line: true, points: completed.map((c) => point(c, c.checkpointed_size, bytes(c.checkpointed_size))) },
          { name: 'savepoint', cls: 'savepoint', marker: 'diamond', points: savepoints.map((c) => point(c, c.checkpointed_size, bytes(c.checkpointed_size))) },
        ],
      }),
    ),
  );
}

/** @param {readonly CheckpointView[]} history newest first @param {number | null} selected */
function historyCard(history, selected) {
  const heads = ['ID', 'Status', 'Type', 'Triggered', 'Duration', 'Checkpointed size', 'Full size', 'Processed in-flight', 'Persisted in-flight', 'Acknowledged', 'Failure reason'];
  return h(
    'section',
    { class: 'card' },
    h('h2', null, 'History ', h('small', { class: 'muted' }, 'newest first; the JobManager keeps the last 100 · click a row for its subtasks')),
    h(
      'div',
      { class: 'scroll history-scroll' },
      h(
        'table',
        { class: 'table history' },
        h('thead', null, h('tr', null, ...heads.map((t, i) => h('th', { class: i === 0 || (i >= 4 && i <= 9) ? 'num' : null }, t)))),
        h(
          'tbody',
          null,
          history.length === 0
            ? h('tr', null, h('td', { colspan: heads.length, class: 'empty' }, 'No checkpoints yet.'))
            : history.map((c) =>
                h(
                  'tr',
                  {
                    'data-key': String(c.id),
                    'data-checkpoint': c.id,
                    'data-status': c.status,
                    'data-savepoint': c.is_savepoint ? 'true' : 'false',
                    'data-action': 'select-checkpoint',
                    class: `clickable cp-row ${String(c.status).toLowerCase()}${selected === c.id ? ' selected' : ''}`,
                    tabindex: 0,
                  },
                  h('td', { class: 'num' }, c.id),
                  h('td', null, statusBadge(c)),
                  h('td', null, typeLabel(c)),
                  h('td', null, time(c.trigger_timestamp)),
                  h('td', { class: 'num' }, duration(took(c))),
                  h('td', { class: 'num' }, bytes(c.checkpointed_size)),
                  h('td', { class: 'num' }, bytes(c.state_size)),
                  h('td', { class: 'num' }, bytes(c.processed_data)),
                  h('td', { class: 'num' }, bytes(c.persisted_data)),
                  h('td', { class: 'num' }, `${c.num_acknowledged_subtasks}/${c.num_subtasks}`),
                  h('td', { class: 'reason', title: c.failure_message ?? null }, c.failure_message ?? ''),
                ),
              ),
        ),
      ),
    ),
  );
}

/** @param {number} cid @param {Detail | { missing: true } | null} detail @param {JobDetailsView} job */
function detailCard(cid, detail, job) {
  const close = h('button', { type: 'button', class: 'link close', 'data-action': 'close-detail', title: 'Close' }, '×');
  if (!detail || 'missing' in detail) {
    return h('section', { class: 'card detail' }, close, h('h2', null, `Checkpoint #${cid}`), h('p', { class: 'muted' }, 'Not in the JobManager’s history any more (it keeps the last 100).'));
  }
  const d = detail.d;
  const heads = ['Subtask', 'Acknowledged', 'End to end', 'State size', 'Sync', 'Async', 'Alignment', 'Aligned processed', 'Aligned persisted', 'Start delay', 'Unaligned'];
  const vertexBlocks = Object.values(d.tasks).map((t) => {
    const subs = detail.subtasks[t.vertex_id];
    const name = job.vertices.find((v) => v.id === t.vertex_id)?.name ?? t.name;
    return h(
      'div',
      { class: 'detail-vertex', 'data-key': t.vertex_id },
      h(
        'h3',
        null,
        name,
        ' ',
        h('span', { class: 'muted' }, `${t.num_acknowledged_subtasks}/${t.num_subtasks} acknowledged · ${duration(t.end_to_end_duration)} · ${bytes(t.state_size)} · processed ${bytes(t.processed_data)} · persisted ${bytes(t.persisted_data)}`),
      ),
      h(
        'table',
        { class: 'table subtask-figures' },
        h('thead', null, h('tr', null, ...heads.map((x, i) => h('th', { class: i >= 2 && i <= 9 ? 'num' : null }, x)))),
        h(
          'tbody',
          null,
          (subs?.subtasks ?? []).map((x) =>
            x.status !== 'completed'
              ? h('tr', { 'data-key': String(x.index) }, h('td', null, `${x.index + 1}/${t.num_subtasks}`), h('td', { colspan: heads.length - 1, class: 'muted' }, d.status === 'FAILED' ? 'did not acknowledge' : 'pending'))
              : h(
                  'tr',
                  { 'data-key': String(x.index) },
                  h('td', null, `${x.index + 1}/${t.num_subtasks}`),
                  h('td', null, time(x.ack_timestamp)),
                  h('td', { class: 'num' }, duration(x.end_to_end_duration)),
                  h('td', { class: 'num' }, bytes(x.state_size)),
                  h('td', { class: 'num' }, duration(x.checkpoint.sync)),
                  h('td', { class: 'num' }, duration(x.checkpoint.async)),
                  h('td', { class: 'num' }, duration(x.alignment.duration)),
                  h('td', { class: 'num' }, bytes(x.alignment.processed)),
                  h('td', { class: 'num' }, bytes(x.alignment.persisted)),
                  h('td', { class: 'num' }, duration(x.start_delay)),
                  h('td', null, x.unaligned_checkpoint ? 'yes' : 'no'),
                ),
          ),
        ),
      ),
    );
  });
  return h(
    'section',
    { class: 'card detail', 'data-checkpoint': cid },
    close,
    h('h2', null, `${d.is_savepoint ? 'Savepoint' : 'Checkpoint'} #${cid} `, statusBadge(d)),
    h(
      'p',
      { class: 'muted' },
      `Triggered ${dateTime(d.trigger_timestamp)} · ${d.num_acknowledged_subtasks}/${d.num_subtasks} subtasks acknowledged · ${duration(took(d))} · ${bytes(d.checkpointed_size)}`,
      d.external_path ? ' · ' : '',
      d.external_path ? h('code', null, d.external_path) : null,
    ),
    d.failure_message ? h('p', { class: 'reason failure' }, d.failure_message) : null,
    ...vertexBlocks,
  );
}

/** @param {CheckpointView[]} all newest first */
function failuresCard(all) {
  const failed = all.filter((c) => c.status === 'FAILED');
  const shown = failed.slice(0, FAILURES_SHOWN);
  return h(
    'section',
    { class: 'card failures' },
    h('h2', null, 'Failed checkpoints ', h('small', { class: 'muted' }, 'since this page was opened, and those the JobManager still keeps')),
    failed.length === 0
      ? h('p', { class: 'muted' }, 'None.')
      : h(
          'ul',
          { class: 'failure-list' },
          shown.map((c) =>
            h(
              'li',
              { 'data-key': String(c.id), 'data-checkpoint': c.id },
              h('span', { class: 'failure-head' }, `#${c.id} ${c.is_savepoint ? 'savepoint' : 'checkpoint'} · ${time(c.failure_timestamp ?? c.trigger_timestamp)}`),
              h('span', { class: 'reason' }, c.failure_message ?? 'no reason given'),
            ),
          ),
          failed.length > shown.length ? h('li', { class: 'muted' }, `and ${failed.length - shown.length} older ones (see the history)`) : null,
        ),
  );
}

/** @param {CheckpointsOverviewView['summary']} summary */
function summaryCard(summary) {
  /** @type {Array<[string, StatisticsView, (n: number) => string]>} */
  const rows = [
    ['End-to-end duration', summary.end_to_end_duration, duration],
    ['Checkpointed size', summary.checkpointed_size, bytes],
    ['Processed in-flight data', summary.processed_data, bytes],
    ['Persisted in-flight data', summary.persisted_data, bytes],
  ];
  /** @type {Array<keyof StatisticsView>} */
  const cols = ['min', 'avg', 'p50', 'p90', 'p99', 'max'];
  return h(
    'section',
    { class: 'card' },
    h('h2', null, 'Summary ', h('small', { class: 'muted' }, 'of the completed checkpoints kept')),
    h(
      'table',
      { class: 'table summary' },
      h('thead', null, h('tr', null, h('th', null, ''), ...cols.map((c) => h('th', { class: 'num' }, c)))),
      h(
        'tbody',
        null,
        rows.map(([label, s, f]) =>
          h('tr', { 'data-key': label }, h('th', null, label), ...cols.map((c) => h('td', { class: 'num' }, f(s?.[c] ?? 0)))),
        ),
      ),
    ),
  );
}

/** @param {CheckpointConfigView} c */
function configCard(c) {
  const ms = (/** @type {number | null} */ v) => (v === null || v === undefined ? 'not set' : v <= 0 ? 'off' : duration(v));
  /**
   * A setting in words: its key, its label and how its value is written.
   * @template {keyof CheckpointConfigView} K
   * @param {K} key @param {string} label @param {(v: CheckpointConfigView[K]) => string} format
   * @returns {[string, string, () => string]}
   */
  const setting = (key, label, format) => [key, label, () => format(c[key])];
  const known = [
    setting('mode', 'Checkpointing mode', String),
    setting('interval', 'Interval', (v) => (v < 0 ? 'checkpointing disabled' : duration(v))),
    setting('timeout', 'Timeout', ms),
    setting('min_pause', 'Minimum pause between checkpoints', (v) => (v ? duration(v) : '0 ms')),
    setting('max_concurrent', 'Maximum concurrent checkpoints', settingValue),
    setting('tolerable_failed_checkpoints', 'Tolerable failed checkpoints', settingValue),
    setting('unaligned_checkpoints', 'Unaligned checkpoints', (v) => (v ? 'enabled' : 'disabled')),
    setting('aligned_checkpoint_timeout', 'Aligned checkpoint timeout', ms),
    setting('interval_during_backlog', 'Interval during backlog', ms),
    setting('externalization', 'Persist checkpoints externally', (v) => (v?.enabled ? `enabled, ${v.delete_on_cancellation ? 'deleted' : 'retained'} on cancellation` : 'disabled')),
    setting('state_backend', 'State backend', String),
    setting('checkpoint_storage', 'Checkpoint storage', String),
    setting('checkpoints_after_tasks_finish', 'Checkpoints after tasks finish', (v) => (v ? 'enabled' : 'disabled')),
    setting('checkpoint_directory', 'Checkpoint directory', String),
    setting('savepoint_directory', 'Default savepoint directory', (v) => v ?? 'not set'),
  ];
  const labelled = new Set(known.map(([k]) => k));
  // Settings this page has no words for yet are listed as they come.
  const rows = [
    ...known.filter(([k]) => k in c).map(([, label, f]) => [label, f()]),
    ...Object.entries(c)
      .filter(([k]) => !labelled.has(k))
      .map(([k, v]) => [k, settingValue(v)]),
  ];
  return h(
    'section',
    { class: 'card config' },
    h('h2', null, 'Checkpoint configuration'),
    h('table', { class: 'table kv' }, h('tbody', null, rows.map(([k, v]) => h('tr', { 'data-key': k }, h('th', null, k), h('td', null, v))))),
  );
}
