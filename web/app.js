// @ts-check
// The weir dashboard: a jobs list and, per job, its graph, checkpoints and exceptions. It polls
// the JobManager's REST API about once a second and updates the page in place.
//
// Routes (the part after #):  /jobs  ·  /jobs/<id>  ·  /jobs/<id>/checkpoints[/<checkpoint id>]  ·  /jobs/<id>/exceptions
//   ·  /taskmanagers  ·  /jobmanager
import { ApiError, answeredBy, api } from './api.js';
import { byId, h, morphChildren } from './dom.js';
import { time } from './format.js';
import { jobsPage } from './pages/jobs.js';
import { jobPage } from './pages/job.js';
import { taskManagersPage } from './pages/task-managers.js';
import { jobManagerPage } from './pages/job-manager.js';
import * as actions from './actions.js';

const POLL_MS = 1000;
/** Polling slows down while the browser tab is hidden. */
const HIDDEN_POLL_MS = 5000;
/** While the server does not answer, polls back off to this (a gone JobManager is not hammered). */
const MAX_OFFLINE_POLL_MS = 30_000;
let failures = 0;

/**
 * A page on screen: refresh() fetches and redraws it; action() handles a click on an element
 * with `data-action` inside it.
 * @typedef {{ refresh(): Promise<void>, action?(name: string, el: HTMLElement): void, dispose?(): void }} View
 */

/** @type {View | null} */
let view = null;
let round = 0;
/** @type {ReturnType<typeof setTimeout> | undefined} */
let timer;
/** Whether the user dismissed the token dialog: polls that get 401 then show the error instead of asking again. */
let tokenDeclined = false;

/** @returns {{ page: 'job', jobId: string, tab: 'overview' | 'checkpoints' | 'exceptions', checkpoint: number | null } | { page: 'jobs' } | { page: 'taskmanagers' } | { page: 'jobmanager' }} */
function route() {
  const parts = location.hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
  if (parts[0] === 'taskmanagers') return { page: 'taskmanagers' };
  if (parts[0] === 'jobmanager') return { page: 'jobmanager' };
  if (parts[0] === 'jobs' && parts[1]) {
    const tab = parts[2] === 'checkpoints' || parts[2] === 'exceptions' ? parts[2] : 'overview';
    const checkpoint = tab === 'checkpoints' && parts[3] ? Number(parts[3]) : null;
    return { page: 'job', jobId: parts[1], tab, checkpoint: Number.isInteger(checkpoint) ? checkpoint : null };
  }
  return { page: 'jobs' };
}

function show() {
  view?.dispose?.();
  const main = byId('main');
  main.replaceChildren();
  const r = route();
  view = r.page === 'job' ? jobPage(main, r) : r.page === 'taskmanagers' ? taskManagersPage(main) : r.page === 'jobmanager' ? jobManagerPage(main) : jobsPage(main);
  void tick();
}

async function refreshTopbar() {
  const o = await api.overview();
  morphChildren(byId('overview'), [
    h('span', { class: 'count' }, 'Running ', h('b', null, o['jobs-running'])),
    h('span', { class: 'count' }, 'Finished ', h('b', null, o['jobs-finished'])),
    h('span', { class: 'count' }, 'Cancelled ', h('b', null, o['jobs-cancelled'])),
    h('span', { class: 'count' }, 'Failed ', h('b', null, o['jobs-failed'])),
    o.taskmanagers !== undefined ? h('span', { class: 'count' }, 'Task Managers ', h('b', null, o.taskmanagers), ` · slots ${o['slots-available'] ?? 0} free of ${o['slots-total'] ?? 0}`) : null,
    haBadge(o),
  ]);
}

/**
 * The HA role of the JobManager this page talks to, and the leader's epoch (a JobManager with
 * high availability only). A standby forwards /overview to the leader, whose answer says
 * "leading": the forwarding header tells the two apart.
 * @param {import('../src/rest/rest-views.ts').OverviewView} o
 */
function haBadge(o) {
  if (o['ha-role'] === undefined) return null;
  const role = answeredBy.leader ? 'standby' : o['ha-role'];
  const epoch = o['ha-leader-epoch'] ?? null;
  const leader = answeredBy.leader ?? o['ha-leader'] ?? null;
  return h(
    'a',
    { class: `ha-badge ha-${role}`, href: '#/jobmanager', title: leader ? `The leader is ${leader}${epoch !== null ? ` (epoch ${epoch})` : ''}` : 'No leader known' },
    `HA ${role}`,
    epoch !== null ? ` · epoch ${epoch}` : '',
  );
}

/** @param {unknown} error */
function setConnection(error) {
  const el = byId('conn');
  if (error === null) {
    el.className = 'conn live';
    el.textContent = `Live · updated ${time(Date.now())}`;
    el.title = 'The dashboard polls the REST API every second.';
  } else {
    const offline = /** @type {{ status?: number }} */ (error).status === 0;
    el.className = 'conn offline';
    el.textContent = offline ? 'Offline · the REST API does not answer (the job may have ended)' : `Error · ${/** @type {Error} */ (error).message}`;
    el.title = /** @type {Error} */ (error).message;
  }
}

async function tick() {
  clearTimeout(timer);
  const mine = ++round;
  const current = view;
  try {
    await Promise.all([refreshTopbar(), current?.refresh()]);
    failures = 0;
    document.body.classList.remove('offline');
    if (mine === round) setConnection(null);
  } catch (e) {
    failures++;
    // The buttons cannot work while the server does not answer (the page greys them out).
    if (e instanceof ApiError && e.status === 0) document.body.classList.add('offline');
    // Reads need the token here (rest.token-required-for-reads): ask, then poll again at once.
    if (e instanceof ApiError && e.status === 401 && !tokenDeclined) {
      if (await actions.askForToken(e.message)) return void tick();
      tokenDeclined = true;
    }
    if (mine === round) setConnection(e);
  }
  const backoff = failures === 0 ? POLL_MS : Math.min(MAX_OFFLINE_POLL_MS, POLL_MS * 2 ** Math.min(failures, 5));
  if (mine === round) timer = setTimeout(tick, document.hidden ? Math.max(HIDDEN_POLL_MS, backoff) : backoff);
}

document.addEventListener('click', (event) => {
  const target = /** @type {Element | null} */ (event.target);
  const el = /** @type {HTMLElement | null} */ (target?.closest('[data-action]'));
  if (!el) return;
  const name = el.dataset.action ?? '';
  event.preventDefault();
  if (actions.handles(name)) void actions.run(name, el);
  else view?.action?.(name, el);
  void tick();
});
document.addEventListener('keydown', (event) => {
  // Vertex boxes and table rows with an action react to Enter like buttons do.
  const el = /** @type {HTMLElement | null} */ (event.target);
  if (event.key === 'Enter' && el?.dataset?.action && el.tagName !== 'BUTTON') el.dispatchEvent(new MouseEvent('click', { bubbles: true }));
});
document.addEventListener('visibilitychange', () => {
  if (!document.hidden) void tick();
});
actions.onChange(() => void tick());
window.addEventListener('hashchange', show);
show();
