// @ts-check
// One job: a header (name, state, figures, actions) and three tabs: Overview (the graph and its
// subtasks), Checkpoints, Exceptions.
import { api } from '../api.js';
import { h, morphChildren } from '../dom.js';
import { count, dateTime, duration } from '../format.js';
import * as actions from '../actions.js';
import { stateBadge } from './jobs.js';
import { overviewTab } from './overview-tab.js';
import { checkpointsTab } from './checkpoints-tab.js';
import { exceptionsTab } from './exceptions-tab.js';
/** @import { JobDetailsView, RecordCountsView, VertexView } from '../../src/rest/rest-views.ts' */

/**
 * @typedef {{ refresh(job: JobDetailsView): Promise<Array<Node | null>>, action?(name: string, el: HTMLElement): void }} Tab
 */

/**
 * @param {HTMLElement} main
 * @param {{ jobId: string, tab: 'overview' | 'checkpoints' | 'exceptions', checkpoint: number | null }} route
 */
export function jobPage(main, route) {
  const { jobId } = route;
  const head = h('section', { class: 'job-head' });
  const notices = h('div', { class: 'notices' });
  const content = h('div', { class: `tab tab-${route.tab}` });
  main.append(head, notices, content);
  /** @type {Tab} */
  const tab = route.tab === 'checkpoints' ? checkpointsTab(jobId, route.checkpoint) : route.tab === 'exceptions' ? exceptionsTab(jobId) : overviewTab(jobId);
  let started = 0;
  let shown = 0;
  /** The last job details, so a click between two refreshes redraws at once. */
  let last = /** @type {JobDetailsView | null} */ (null);

  /** @param {JobDetailsView} job @param {Array<Node | null>} body */
  const draw = (job, body) => {
    document.title = `${job.name} · ${route.tab} · weir`;
    morphChildren(head, header(job, route.tab));
    morphChildren(notices, actions.notices(jobId));
    morphChildren(content, body);
  };

  return {
    async refresh() {
      const mine = ++started;
      let job;
      try {
        job = await api.job(jobId);
      } catch (e) {
        if (/** @type {{ status?: number }} */ (e).status === 404 && mine > shown) {
          shown = mine;
          morphChildren(head, [h('h1', null, 'Job not found'), h('p', { class: 'muted' }, `This JobManager does not run job ${jobId}. `, h('a', { href: '#/jobs' }, 'Back to the jobs list.'))]);
        }
        // Keep showing what we had (the job may have ended and its REST API closed).
        if (last) morphChildren(notices, actions.notices(jobId));
        throw e;
      }
      const body = await tab.refresh(job);
      // An older refresh that answered late must not overwrite a newer one.
      if (mine < shown) return;
      shown = mine;
      last = job;
      draw(job, body);
    },
    /** @param {string} name @param {HTMLElement} el */
    action(name, el) {
      tab.action?.(name, el);
    },
  };
}

/** @param {JobDetailsView} job @param {string} active */
function header(job, active) {
  const running = job.state === 'RUNNING';
  const sources = job.vertices.filter((v) => v.operators.some((o) => o.kind === 'source'));
  const sinks = job.vertices.filter((v) => v.operators.some((o) => o.kind === 'sink'));
  const sum = (/** @type {VertexView[]} */ vs, /** @type {keyof RecordCountsView} */ f) => vs.reduce((n, v) => n + v.metrics[f], 0);
  const link = (/** @type {string} */ tab, /** @type {string} */ label, /** @type {number | null} */ badge) =>
    h('a', { href: `#/jobs/${job.jid}${tab === 'overview' ? '' : `/${tab}`}`, class: `tab-link${tab === active ? ' active' : ''}`, 'data-tab': tab }, label, badge ? h('span', { class: 'pill' }, badge) : null);
  const button = (/** @type {string} */ action, /** @type {string} */ label, /** @type {string} */ cls) =>
    h('button', { type: 'button', class: cls, 'data-action': action, 'data-job': job.jid, 'data-job-name': job.name, disabled: !running, title: running ? null : `the job is ${job.state}` }, label);
  return [
    h(
      'div',
      { class: 'job-title' },
      h('h1', null, job.name),
      stateBadge(job.state),
      h(
        'div',
        { class: 'job-actions' },
        button('savepoint', 'Trigger savepoint', 'primary'),
        button('stop', 'Stop with savepoint', ''),
        button('cancel', 'Cancel job', 'danger'),
      ),
    ),
    h(
      'dl',
      { class: 'facts' },
      fact('Job ID', h('code', null, job.jid)),
      fact('Started', dateTime(job['start-time'])),
      fact('Duration', duration(job.duration)),
      fact('Restarts', count(job.restarts)),
      // A source task's records in are what its reader emitted, once: its records out are 0 when
      // chained to its sink and one per edge when it feeds several.
      fact('Records read by sources', count(sum(sources, 'read-records'))),
      fact('Records into sinks', count(sum(sinks, 'read-records'))),
    ),
    h('nav', { class: 'tabs' }, link('overview', 'Overview', null), link('checkpoints', 'Checkpoints', null), link('exceptions', 'Exceptions', job.restarts || null)),
  ];
}

/** @param {string} term @param {Node | string} value */
function fact(term, value) {
  return h('div', null, h('dt', null, term), h('dd', null, value));
}
