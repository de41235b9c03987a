// @ts-check
// The Job Manager page: the configuration the JobManager runs with (every key, secrets left out).
import { ApiError, api } from '../api.js';
import { h, morphChildren } from '../dom.js';

/** @param {HTMLElement} main */
export function jobManagerPage(main) {
  document.title = 'Job Manager · weir';
  const body = h('section', { class: 'card' });
  main.append(h('h1', null, 'Job Manager'), body);
  return {
    async refresh() {
      let config;
      try {
        config = await api.jobManagerConfig();
      } catch (e) {
        if (e instanceof ApiError && e.status === 404) {
          morphChildren(body, [h('p', { class: 'empty' }, "This is a weir run: its configuration is the job's (its Configuration tab).")]);
          return;
        }
        throw e;
      }
      morphChildren(body, [
        h(
          'table',
          { class: 'table config' },
          h('thead', null, h('tr', null, h('th', null, 'Key'), h('th', null, 'Value'))),
          h('tbody', null, config.map((c) => h('tr', { 'data-key': c.key }, h('td', null, h('code', null, c.key)), h('td', null, c.value)))),
        ),
      ]);
    },
  };
}
