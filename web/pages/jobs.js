// @ts-check
// The jobs list: every job this JobManager runs (a `weir run` serves one).
import { api } from '../api.js';
import { h, morphChildren } from '../dom.js';
import { dateTime, duration } from '../format.js';
/** @import { JobStatus } from '../../src/rest/rest-views.ts' */

/** @param {JobStatus} state */
export function stateBadge(state) {
  return h('span', { class: `badge state-${String(state).toLowerCase()}` }, state);
}

/** @param {HTMLElement} main */
export function jobsPage(main) {
  document.title = 'Jobs · weir';
  const body = h('section', { class: 'card' });
  main.append(h('h1', null, 'Jobs'), body);
  return {
    async refresh() {
      const { jobs } = await api.jobs();
      morphChildren(body, [
        h(
          'table',
          { class: 'table jobs' },
          h('thead', null, h('tr', null, h('th', null, 'Job name'), h('th', null, 'Job ID'), h('th', null, 'Started'), h('th', { class: 'num' }, 'Duration'), h('th', { class: 'num' }, 'Restarts'), h('th', null, 'Status'))),
          h(
            'tbody',
            null,
            jobs.length === 0
              ? h('tr', null, h('td', { colspan: 6, class: 'empty' }, 'No jobs.'))
              : jobs.map((j) =>
                  h(
                    'tr',
                    { 'data-key': j.jid, class: 'job-row' },
                    h('td', null, h('a', { href: `#/jobs/${j.jid}`, class: 'job-link' }, j.name)),
                    h('td', null, h('code', null, j.jid)),
                    h('td', null, dateTime(j['start-time'])),
                    h('td', { class: 'num' }, duration(j.duration)),
                    h('td', { class: 'num' }, j.restarts),
                    h('td', null, stateBadge(j.state)),
                  ),
                ),
          ),
        ),
      ]);
    },
  };
}
