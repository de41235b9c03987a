// @ts-check
// The Task Managers page: the TaskManager processes registered with this JobManager (or, for a
// `weir run`, the threads of its process that run the job), their slots, when they last answered a
// heartbeat, and their keyed state on local disk (lmdb backend: bytes in the state working
// directory, and the share of state accesses the in-memory caches answered).
import { api } from '../api.js';
import { h, morphChildren } from '../dom.js';
import { bytes, count, dateTime, duration } from '../format.js';

/** @param {HTMLElement} main */
export function taskManagersPage(main) {
  document.title = 'Task Managers · weir';
  const body = h('section', { class: 'card' });
  main.append(h('h1', null, 'Task Managers'), body);
  return {
    async refresh() {
      const list = (await api.taskManagers()).taskmanagers;
      const now = Date.now();
      morphChildren(body, [
        h(
          'table',
          { class: 'table taskmanagers' },
          h(
            'thead',
            null,
            h('tr', null, h('th', null, 'ID'), h('th', null, 'Host'), h('th', { class: 'num' }, 'Data port'), h('th', { class: 'num' }, 'Slots'), h('th', { class: 'num' }, 'Free'), h('th', { class: 'num' }, 'CPU cores'), h('th', { class: 'num' }, 'Memory'), h('th', { class: 'num' }, 'Free memory'), h('th', { class: 'num', title: 'bytes the local state stores (lmdb backend) take in the state working directory' }, 'State on disk'), h('th', { class: 'num', title: 'state accesses the in-memory caches answered, of all (lmdb backend)' }, 'Cache hit rate'), h('th', null, 'Last heartbeat')),
          ),
          h(
            'tbody',
            null,
            list.length === 0
              ? h('tr', null, h('td', { colspan: 11, class: 'empty' }, 'No TaskManager has registered. Start one: weir taskmanager --jobmanager ' + location.host))
              : list.map((t) =>
                  h(
                    'tr',
                    { 'data-key': t.id },
                    h('td', null, h('code', { title: t.id }, t.resourceId)),
                    h('td', null, `${t.host} (${t.hostname}, pid ${t.pid})`),
                    // Threads of a weir run have no data port (-1): they exchange records in memory.
                    h('td', { class: 'num' }, t.dataPort < 0 ? '–' : t.dataPort),
                    h('td', { class: 'num' }, t.slotsNumber),
                    h('td', { class: 'num' }, t.freeSlots),
                    h('td', { class: 'num' }, count(t.hardware.cpuCores)),
                    h('td', { class: 'num' }, bytes(t.hardware.physicalMemory)),
                    h('td', { class: 'num' }, bytes(t.hardware.freeMemory)),
                    h('td', { class: 'num' }, t.localState ? bytes(t.localState.localBytes) : '–'),
                    h(
                      'td',
                      { class: 'num', title: t.localState ? `${count(t.localState.cacheHits)} hits, ${count(t.localState.cacheMisses)} misses` : 'no state on local disk' },
                      t.localState && t.localState.cacheHitRate !== null ? `${(100 * t.localState.cacheHitRate).toFixed(1)}%` : '–',
                    ),
                    h('td', null, `${dateTime(t.timeSinceLastHeartbeat)} (${duration(now - t.timeSinceLastHeartbeat)} ago)`),
                  ),
                ),
          ),
        ),
      ]);
    },
  };
}
