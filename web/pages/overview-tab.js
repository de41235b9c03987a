// @ts-check
// A job's overview: the graph, the progress of sources that report it (a CDC snapshot), a table of
// its vertices and, for the selected vertex, its subtasks.
// Busy, backpressured and idle are the shares of the last 5 s a subtask spent working, blocked on
// output and waiting for input, as Flink measures them; backpressure reads OK up to 10 %, LOW up to
// 50 %, HIGH above, as in Flink.
import { api } from '../api.js';
import { h } from '../dom.js';
import { bytes, count, percent, rate } from '../format.js';
import { jobGraph } from '../graph.js';
import { subtaskLoad, vertexLoad } from '../load.js';
import { consumerLagCards } from './consumer-lag.js';
import { pipelineCard } from './pipeline-tables.js';
import { sourceProgressCards } from './source-progress.js';
import { watermarksCard, watermarkText } from './watermarks.js';
/** @import { Load } from '../load.js' */
/** @import { JobDetailsView, SubtaskView, VertexView } from '../../src/rest/rest-views.ts' */

/** Rates and ratios are taken over about this window. */
const WINDOW_MS = 3000;

/**
 * Samples of cumulative figures, to turn them into rates.
 */
class Rates {
  /** @type {Map<string, Array<{ t: number, v: number }>>} */
  #samples = new Map();

  /** @param {string} key @param {number} t @param {number} v */
  add(key, t, v) {
    let list = this.#samples.get(key);
    // A restarted task starts counting again.
    if (!list || (list.length > 0 && v < /** @type {{ v: number }} */ (list.at(-1)).v)) this.#samples.set(key, (list = []));
    if (list.length === 0 || /** @type {{ t: number }} */ (list.at(-1)).t < t) list.push({ t, v });
    while (list.length > 2 && list[1] && list[1].t <= t - WINDOW_MS) list.shift();
  }

  /** Growth per millisecond over the window, or null before there are two samples far enough apart. @param {string} key */
  perMs(key) {
    const list = this.#samples.get(key);
    if (!list || list.length < 2) return null;
    const a = /** @type {{ t: number, v: number }} */ (list[0]);
    const b = /** @type {{ t: number, v: number }} */ (list.at(-1));
    return b.t - a.t < 500 ? null : (b.v - a.v) / (b.t - a.t);
  }
}

/** @type {Map<string, Rates>} one per job, kept while the page is open */
const perJob = new Map();

/** @param {Load} load @returns {'ok' | 'low' | 'high' | 'idle'} */
function level(load) {
  if (load.kind === 'unknown') return 'idle';
  return load.backpressured > 0.5 ? 'high' : load.backpressured > 0.1 ? 'low' : 'ok';
}

/** @param {Load} load */
function backpressureChip(load) {
  const l = level(load);
  return h('span', { class: `bp-chip bp-${l}` }, load.kind === 'unknown' ? '–' : `${percent(load.backpressured)} ${l.toUpperCase()}`);
}

/** @param {Load} load */
const busy = (load) => h('span', { class: `load-chip load-${load.kind}` }, load.kind === 'unknown' ? '–' : percent(load.busy));

/** @param {string} jobId */
export function overviewTab(jobId) {
  /** @type {string | null} */
  let selected = null;
  const rates = perJob.get(jobId) ?? new Rates();
  perJob.set(jobId, rates);

  /** @param {JobDetailsView} job */
  const measure = (job) => {
    for (const v of job.vertices) {
      rates.add(`${v.id}:in`, job.now, v.metrics['read-records']);
      rates.add(`${v.id}:out`, job.now, v.metrics['write-records']);
    }
  };

  return {
    /** @param {JobDetailsView} job */
    async refresh(job) {
      measure(job);
      const vertex = job.vertices.find((v) => v.id === selected);
      const pipeline = isPipeline(job) ? await api.pipeline(jobId).catch(() => null) : null;
      for (const t of pipeline?.tables ?? []) rates.add(`pipeline-table:${t.table}`, pipeline?.['reported-at'] ?? job.now, t.changes);
      const changesPerSecond = (/** @type {string} */ table) => {
        const r = rates.perMs(`pipeline-table:${table}`);
        return r === null ? null : r * 1000;
      };
      return [
        h('section', { class: 'card graph-card' }, h('h2', null, 'Job graph'), h('div', { class: 'graph-wrap' }, jobGraph(job.vertices, selected)), legend()),
        pipeline ? pipelineCard(pipeline, changesPerSecond) : null,
        ...sourceProgressCards(job),
        ...consumerLagCards(job),
        h('section', { class: 'card' }, h('h2', null, 'Vertices'), verticesTable(job, rates, selected)),
        watermarksCard(job),
        vertex ? h('section', { class: 'card' }, h('h2', null, `Subtasks of ${vertex.name}`), subtasksTable(vertex)) : null,
      ];
    },
    /** @param {string} name @param {HTMLElement} el */
    action(name, el) {
      if (name === 'select-vertex') selected = selected === el.dataset.vertex ? null : (el.dataset.vertex ?? null);
    },
  };
}

/** A job of `weir pipeline FILE`: it has the pipeline's transform-and-route operator. @param {JobDetailsView} job */
function isPipeline(job) {
  return job.vertices.some((v) => v.operators.some((o) => o.uid === 'pipeline-transform-route'));
}

function legend() {
  const item = (/** @type {string} */ kind, /** @type {string} */ text) => h('span', { class: `legend-item load-${kind}` }, h('i', null), text);
  return h(
    'div',
    { class: 'graph-legend' },
    item('idle', 'idle'),
    item('busy', 'busy (the redder, the busier: the bottleneck)'),
    item('backpressured', 'backpressured (waiting on a busy box downstream)'),
    item('unknown', 'not measured yet / not running'),
    h('span', { class: 'muted' }, ' · each box shows its busiest subtask over the last 5 s · click a box or row for its subtasks'),
  );
}

/**
 * @param {JobDetailsView} job
 * @param {Rates} rates
 * @param {string | null} selected
 */
function verticesTable(job, rates, selected) {
  const perSecond = (/** @type {string} */ key) => {
    const r = rates.perMs(key);
    return r === null ? null : r * 1000;
  };
  const heads = ['Name', 'Status', 'Parallelism', 'Records received', 'Received/s', 'Records sent', 'Sent/s', 'Busy', 'Backpressure', 'Activity'];
  return h(
    'table',
    { class: 'table vertices' },
    h('thead', null, h('tr', null, ...heads.map((t, i) => h('th', { class: i >= 2 && i <= 8 ? 'num' : null }, t)))),
    h(
      'tbody',
      null,
      job.vertices.map((v) => {
        const load = vertexLoad(v);
        const statuses = new Map();
        for (const t of v.subtasks) statuses.set(t.status, (statuses.get(t.status) ?? 0) + 1);
        const activities = [...new Set(v.subtasks.map((t) => t.activity).filter(Boolean))];
        return h(
          'tr',
          { 'data-key': v.id, 'data-action': 'select-vertex', 'data-vertex': v.id, class: `clickable${selected === v.id ? ' selected' : ''}`, tabindex: 0 },
          h('td', null, v.name),
          h('td', null, [...statuses].map(([st, n]) => `${n} ${st}`).join(', ')),
          h('td', { class: 'num' }, v.parallelism),
          h('td', { class: 'num' }, count(v.metrics['read-records'])),
          h('td', { class: 'num' }, rate(perSecond(`${v.id}:in`))),
          h('td', { class: 'num' }, count(v.metrics['write-records'])),
          h('td', { class: 'num' }, rate(perSecond(`${v.id}:out`))),
          h('td', { class: 'num' }, busy(load)),
          h('td', { class: 'num' }, backpressureChip(load)),
          h('td', { class: 'activity' }, activities.length <= 1 ? (activities[0] ?? '') : `${activities[0]} (+${activities.length - 1} more; see subtasks)`),
        );
      }),
    ),
  );
}

/**
 * What buffer debloating lets each input channel hold: bytes between TaskManagers, records within one.
 * @param {{ bytes?: number, records?: number }} d
 */
function debloatedText(d) {
  return [d.bytes !== undefined ? bytes(d.bytes) : null, d.records !== undefined ? `${count(d.records)} records` : null].filter((x) => x !== null).join(' / ');
}

/** @param {VertexView} v */
function subtasksTable(v) {
  const heads = ['Subtask', 'Status', 'Records received', 'Records sent', 'Bytes received', 'Bytes sent', 'Busy', 'Idle', 'Backpressure', 'In buffers', 'Out buffers', 'Watermark', 'Activity'];
  return h(
    'table',
    { class: 'table subtasks' },
    h('thead', null, h('tr', null, ...heads.map((t, i) => h('th', { class: i >= 2 && i <= 10 ? 'num' : null }, t)))),
    h(
      'tbody',
      null,
      v.subtasks.map((t) => {
        const load = subtaskLoad(t);
        return h(
          'tr',
          { 'data-key': String(t.subtask) },
          h('td', null, `${t.subtask + 1}/${v.parallelism}`),
          h('td', null, t.status),
          h('td', { class: 'num' }, count(t['read-records'])),
          h('td', { class: 'num' }, count(t['write-records'])),
          h('td', { class: 'num' }, bytes(t['read-bytes'])),
          h('td', { class: 'num' }, bytes(t['write-bytes'])),
          h('td', { class: 'num' }, busy(load)),
          h('td', { class: 'num' }, load.kind === 'unknown' ? '–' : percent(load.idle)),
          h('td', { class: 'num' }, backpressureChip(load)),
          h('td', { class: 'num', title: t.debloated ? `buffer debloating: each input channel may hold ${debloatedText(t.debloated)} in flight` : 'share of its input channels\' buffers in use (inPoolUsage)' }, percent(t.inPoolUsage), t.debloated ? h('div', { class: 'debloated' }, debloatedText(t.debloated)) : null),
          h('td', { class: 'num', title: 'share of its output channels\' buffers in use (outPoolUsage)' }, percent(t.outPoolUsage)),
          h('td', null, watermarkText(t.watermark)),
          h('td', { class: 'activity' }, t.activity),
        );
      }),
    ),
  );
}
