// @ts-check
// The Job Manager page: high availability as this JobManager sees it (its role, the leader and the
// leader's epoch), then the configuration it runs with (every key, secrets left out).
import { ApiError, answeredBy, api } from '../api.js';
import { h, morphChildren } from '../dom.js';
import { settingValue } from '../format.js';

/** /jobmanager/config's facts of the running cluster (src/cluster/cluster-views.ts HA_STATUS_KEYS). */
const ROLE = 'high-availability.status.role';
const LEADER = 'high-availability.status.leader-address';
const EPOCH = 'high-availability.status.leader-epoch';

/** @param {HTMLElement} main */
export function jobManagerPage(main) {
  document.title = 'Job Manager · weir';
  const ha = h('section', { class: 'card ha', 'data-key': 'ha' });
  const body = h('section', { class: 'card' });
  main.append(h('h1', null, 'Job Manager'), ha, body);
  return {
    async refresh() {
      let config;
      try {
        config = await api.jobManagerConfig();
      } catch (e) {
        if (e instanceof ApiError && e.status === 404) {
          ha.hidden = true;
          morphChildren(body, [h('p', { class: 'empty' }, "This is a weir run: its configuration is the job's (its Configuration tab).")]);
          return;
        }
        throw e;
      }
      morphChildren(ha, highAvailability(new Map(config.map((c) => [c.key, c.value])), answeredBy.leader));
      morphChildren(body, [
        h(
          'table',
          { class: 'table config' },
          h('thead', null, h('tr', null, h('th', null, 'Key'), h('th', null, 'Value'))),
          h('tbody', null, config.map((c) => h('tr', { 'data-key': c.key }, h('td', null, h('code', null, c.key)), h('td', null, settingValue(c.value))))),
        ),
      ]);
    },
  };
}

/**
 * @param {Map<string, string>} config
 * @param {string | null} forwardedTo the leader a standby forwarded the request to, if it did
 */
function highAvailability(config, forwardedTo) {
  const type = config.get('high-availability.type') ?? 'none';
  if (type === 'none') {
    return [
      h('h2', null, 'High availability'),
      h('p', { class: 'ha-off' }, 'High availability is off (high-availability.type: none): this JobManager is the only one, and its jobs stop with it.'),
    ];
  }
  // A standby answers for the leader: the config (and its role) is the leader's, the page's JobManager is the standby.
  const role = forwardedTo ? 'standby' : (config.get(ROLE) ?? 'unknown');
  const leader = config.get(LEADER);
  const epoch = config.get(EPOCH);
  return [
    h('h2', null, 'High availability'),
    h(
      'dl',
      { class: 'facts' },
      fact('This JobManager', h('span', { class: `badge ha-role ha-${role}` }, role.toUpperCase())),
      fact('Leader', leader ? h('code', { class: 'ha-leader' }, leader) : h('span', { class: 'muted' }, 'none known')),
      fact('Leader epoch', h('span', { class: 'ha-epoch' }, epoch ?? '–')),
      fact('Type', type),
      fact('Cluster id', h('code', null, config.get('high-availability.cluster-id') ?? '')),
    ),
    forwardedTo
      ? h('p', { class: 'ha-forwarded muted' }, `This JobManager (${location.host}) is a standby: the leader at ${forwardedTo} answers for it, so what this dashboard shows is the leader's.`)
      : null,
  ];
}

/** @param {string} term @param {Node | string} value */
function fact(term, value) {
  return h('div', null, h('dt', null, term), h('dd', null, value));
}
