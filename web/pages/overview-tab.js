// @ts-check
// A job's overview: the graph, the progress of sources that report it (a CDC snapshot), a table of
// its vertices and, for the selected vertex, its subtasks.
// Backpressure is the share of the last few seconds a subtask spent blocked on output (the growth
// of its backpressured-ms between polls), as Flink shows it: OK up to 10 %, LOW up to 50 %, HIGH above.
import { h } from '../dom.js';
import { count, percent, rate } from '../format.js';
import { jobGraph } from '../graph.js';
import { sourceProgressCards } from './source-progress.js';
/** @import { Pressure } from '../graph.js' */
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

/** @param {number | null} ratio @returns {Pressure['level']} */
function level(ratio) {
  if (ratio === null) return 'idle';
  return ratio > 0.5 ? 'high' : ratio > 0.1 ? 'low' : 'ok';
}

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
      for (const t of v.subtasks) rates.add(`${v.id}:${t.subtask}:bp`, job.now, t['backpressured-ms']);
    }
  };
  /** @param {VertexView} v @param {SubtaskView} t */
  const subtaskRatio = (v, t) => {
    if (t.status !== 'running') return null;
    const r = rates.perMs(`${v.id}:${t.subtask}:bp`);
    return r === null ? null : Math.min(1, Math.max(0, r));
  };
  /** The vertex's backpressure: its most backpressured subtask. @param {VertexView} v @returns {Pressure} */
  const pressure = (v) => {
    const rs = v.subtasks.map((t) => subtaskRatio(v, t)).filter((r) => r !== null);
    const ratio = rs.length ? Math.max(...rs) : null;
    return { ratio, level: level(ratio) };
  };

  return {
    /** @param {JobDetailsView} job */
    async refresh(job) {
      measure(job);
      const vertex = job.vertices.find((v) => v.id === selected);
      return [
        h('section', { class: 'card graph-card' }, h('h2', null, 'Job graph'), h('div', { class: 'graph-wrap' }, jobGraph(job.vertices, pressure, selected)), legend()),
        ...sourceProgressCards(job),
        h('section', { class: 'card' }, h('h2', null, 'Vertices'), verticesTable(job, pressure, rates, selected)),
        vertex ? h('section', { class: 'card' }, h('h2', null, `Subtasks of ${vertex.name}`), subtasksTable(vertex, (t) => subtaskRatio(vertex, t))) : null,
      ];
    },
    /** @param {string} name @param {HTMLElement} el */
    action(name, el) {
      if (name === 'select-vertex') selected = selected === el.dataset.vertex ? null : (el.dataset.vertex ?? null);
    },
  };
}

function legend() {
  const item = (/** @type {string} */ lvl, /** @type {string} */ text) => h('span', { class: `legend-item bp-${lvl}` }, h('i', null), text);
  return h('div', { class: 'graph-legend' }, 'Backpressure: ', item('ok', 'OK ≤ 10%'), item('low', 'LOW ≤ 50%'), item('high', 'HIGH > 50%'), item('idle', 'not measured yet / not running'), h('span', { class: 'muted' }, ' · click a box or row for its subtasks'));
}

/**
 * @param {JobDetailsView} job
 * @param {(v: VertexView) => Pressure} pressure
 * @param {Rates} rates
 * @param {string | null} selected
 */
function verticesTable(job, pressure, rates, selected) {
  const perSecond = (/** @type {string} */ key) => {
    const r = rates.perMs(key);
    return r === null ? null : r * 1000;
  };
  return h(
    'table',
    { class: 'table vertices' },
    h(
      'thead',
      null,
      h('tr', null, ...['Name', 'Status', 'Parallelism', 'Records received', 'Received/s', 'Records sent', 'Sent/s', 'Backpressure', 'Activity'].map((t, i) => h('th', { class: i >= 2 && i <= 7 ? 'num' : null }, t))),
    ),
    h(
      'tbody',
      null,
      job.vertices.map((v) => {
        const bp = pressure(v);
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
          h('td', { class: 'num' }, h('span', { class: `bp-chip bp-${bp.level}` }, bp.ratio === null ? '–' : `${percent(bp.ratio)} ${bp.level.toUpperCase()}`)),
          h('td', { class: 'activity' }, activities.length <= 1 ? (activities[0] ?? '') : `${activities[0]} (+${activities.length - 1} more; see subtasks)`),
        );
      }),
    ),
  );
}

/** @param {VertexView} v @param {(t: SubtaskView) => number | null} ratio */
function subtasksTable(v, ratio) {
  return h(
    'table',
    { class: 'table subtasks' },
    h('thead', null, h('tr', null, ...['Subtask', 'Status', 'Records received', 'Records sent', 'Backpressure', 'Activity'].map((t, i) => h('th', { class: i >= 2 && i <= 4 ? 'num' : null }, t)))),
    h(
      'tbody',
      null,
      v.subtasks.map((t) => {
        const r = ratio(t);
        return h(
          'tr',
          { 'data-key': String(t.subtask) },
          h('td', null, `${t.subtask + 1}/${v.parallelism}`),
          h('td', null, t.status),
          h('td', { class: 'num' }, count(t['read-records'])),
          h('td', { class: 'num' }, count(t['write-records'])),
          h('td', { class: 'num' }, h('span', { class: `bp-chip bp-${level(r)}` }, r === null ? '–' : `${percent(r)} ${level(r).toUpperCase()}`)),
          h('td', { class: 'activity' }, t.activity),
        );
      }),
    ),
  );
}
