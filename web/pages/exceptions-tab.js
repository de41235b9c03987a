// @ts-check
// A job's exceptions: each failure the JobManager saw, whether it restarted the job, and its stack trace.
import { api } from '../api.js';
import { h } from '../dom.js';
import { count, dateTime } from '../format.js';
/** @import { JobDetailsView } from '../../src/rest/rest-views.ts' */

/** @param {string} jobId */
export function exceptionsTab(jobId) {
  return {
    /** @param {JobDetailsView} job */
    async refresh(job) {
      const ex = await api.exceptions(jobId);
      const entries = [...ex.exceptionHistory.entries].reverse();
      return [
        h(
          'section',
          { class: 'card' },
          h('h2', null, 'Restarts'),
          h('p', { class: 'restarts' }, h('b', null, count(ex.restarts)), ex.restarts === 1 ? ' restart' : ' restarts', job.state === 'RESTARTING' ? ' · restarting now' : ''),
        ),
        h(
          'section',
          { class: 'card' },
          h('h2', null, 'Exception history ', h('small', { class: 'muted' }, 'newest first')),
          entries.length === 0
            ? h('p', { class: 'muted empty-exceptions' }, 'No exceptions: the job has not failed.')
            : h(
                'div',
                { class: 'exceptions' },
                entries.map((e, i) =>
                  h(
                    'details',
                    // The newest opens with its whole stack, as Flink's root exception does; the others on a click.
                    { class: 'exception', 'data-key': `${e.timestamp}-${e.attempt}-${entries.length - i}`, open: i === 0 ? '' : null },
                    h(
                      'summary',
                      null,
                      h('span', { class: 'ex-time' }, dateTime(e.timestamp)),
                      h('span', { class: 'ex-name' }, e.exceptionName),
                      e.taskName ? h('span', { class: 'ex-task' }, `in ${e.taskName}`) : null,
                      h('span', { class: 'muted' }, `attempt ${e.attempt}`),
                      h('span', { class: `badge ${e.restarted ? 'state-restarting' : 'state-failed'}` }, e.restarted ? 'restarted' : 'not restarted'),
                      h('span', { class: 'ex-message' }, firstLine(e.stacktrace)),
                    ),
                    h('pre', { class: 'stacktrace' }, e.stacktrace),
                  ),
                ),
              ),
        ),
      ];
    },
  };
}

/** @param {string} text */
function firstLine(text) {
  return String(text ?? '').split('\n')[0] ?? '';
}
