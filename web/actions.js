// @ts-check
// What a person can do to a running job: trigger a savepoint, stop it with a savepoint, cancel it.
// Each asks for confirmation first. Savepoints and stops run asynchronously on the JobManager (a
// trigger id to poll); their progress and outcome are shown as notices on the job page.
import { ApiError, api, token } from './api.js';
import { h } from './dom.js';
import { time } from './format.js';
/** @import { SavepointTriggerView } from '../src/rest/rest-views.ts' */

const DIR_KEY = 'weir.savepoint-dir';

/**
 * @typedef {{ seq: number, jobId: string, kind: 'savepoint' | 'stop' | 'cancel', state: 'running' | 'done' | 'failed',
 *   startedAt: number, location?: string, message?: string }} Operation
 */

/** @type {Operation[]} */
const operations = [];
let nextSeq = 1;
let changed = () => {};

/** @param {() => void} fn called when an operation starts, progresses or ends */
export function onChange(fn) {
  changed = fn;
}

const NAMES = new Set(['savepoint', 'stop', 'cancel', 'dismiss']);

/** @param {string} name */
export function handles(name) {
  return NAMES.has(name);
}

/**
 * @param {string} name
 * @param {HTMLElement} el the clicked element: `data-job` names the job, `data-op` the notice
 */
export async function run(name, el) {
  if (name === 'dismiss') {
    const i = operations.findIndex((o) => o.seq === Number(el.dataset.op));
    if (i >= 0) operations.splice(i, 1);
    changed();
    return;
  }
  const jobId = el.dataset.job ?? '';
  const jobName = el.dataset.jobName ?? jobId;
  if (name === 'savepoint') return savepoint(jobId, jobName);
  if (name === 'stop') return stop(jobId, jobName);
  if (name === 'cancel') return cancel(jobId, jobName);
}

/** The notices of a job's operations, newest first. @param {string} jobId */
export function notices(jobId) {
  return operations
    .filter((o) => o.jobId === jobId)
    .reverse()
    .map((o) => {
      const what = o.kind === 'savepoint' ? 'Savepoint' : o.kind === 'stop' ? 'Stop with savepoint' : 'Cancel';
      const text =
        o.state === 'running'
          ? `${what} in progress…`
          : o.state === 'failed'
            ? `${what} failed: ${o.message ?? ''}`
            : o.kind === 'cancel'
              ? 'Cancel requested: the job is being cancelled.'
              : `${what} completed${o.kind === 'stop' ? ' (the job is finishing)' : ''}: `;
      return h(
        'div',
        { class: `notice ${o.state}`, 'data-key': String(o.seq), 'data-kind': o.kind, role: 'status' },
        h('span', { class: 'notice-time' }, time(o.startedAt)),
        h('span', { class: 'notice-text' }, text, o.location ? h('code', { class: 'location' }, o.location) : null),
        o.state === 'running' ? null : h('button', { type: 'button', class: 'link', 'data-action': 'dismiss', 'data-op': o.seq, title: 'Dismiss' }, '×'),
      );
    });
}

// ---- the operations ----

/** @param {string} jobId @param {string} jobName */
async function savepoint(jobId, jobName) {
  const dir = await defaultDirectory(jobId);
  const answer = await ask({
    title: 'Trigger a savepoint',
    text: `Takes a savepoint of “${jobName}” while it keeps running. Savepoints are never deleted by weir.`,
    fields: [{ name: 'dir', label: 'Target directory', value: dir, placeholder: 'execution.checkpointing.savepoint-dir', hint: 'Leave empty to use execution.checkpointing.savepoint-dir.' }],
    confirm: 'Trigger savepoint',
  });
  if (!answer) return;
  rememberDirectory(answer.dir);
  await start(jobId, 'savepoint', () => api.triggerSavepoint(jobId, String(answer.dir)));
}

/** @param {string} jobId @param {string} jobName */
async function stop(jobId, jobName) {
  const dir = await defaultDirectory(jobId);
  const answer = await ask({
    title: 'Stop with savepoint',
    text: `Stops “${jobName}”: its sources stop, a final savepoint is taken, sinks commit, and the job ends FINISHED. If the savepoint fails, the job keeps running.`,
    fields: [
      { name: 'dir', label: 'Target directory', value: dir, placeholder: 'execution.checkpointing.savepoint-dir', hint: 'Leave empty to use execution.checkpointing.savepoint-dir.' },
      { name: 'drain', label: 'Drain: end the input first, so every operator flushes (for a permanent stop)', type: 'checkbox' },
    ],
    confirm: 'Stop job',
    dismiss: 'Keep running',
    danger: true,
  });
  if (!answer) return;
  rememberDirectory(answer.dir);
  await start(jobId, 'stop', () => api.stop(jobId, String(answer.dir), answer.drain === true));
}

/** @param {string} jobId @param {string} jobName */
async function cancel(jobId, jobName) {
  const answer = await ask({
    title: 'Cancel job',
    text: `Cancels “${jobName}” at once, without a savepoint. Whether its checkpoints are kept follows execution.checkpointing.externalized-checkpoint-retention.`,
    fields: [],
    confirm: 'Cancel job',
    dismiss: 'Keep running',
    danger: true,
  });
  if (!answer) return;
  /** @type {Operation} */
  const op = { seq: nextSeq++, jobId, kind: 'cancel', state: 'running', startedAt: Date.now() };
  operations.push(op);
  changed();
  try {
    await withToken(() => api.cancel(jobId));
    op.state = 'done';
  } catch (e) {
    Object.assign(op, { state: 'failed', message: /** @type {Error} */ (e).message });
  }
  changed();
}

/**
 * Triggers a savepoint or stop and follows its trigger id to the end.
 * @param {string} jobId
 * @param {'savepoint' | 'stop'} kind
 * @param {() => Promise<SavepointTriggerView>} trigger
 */
async function start(jobId, kind, trigger) {
  /** @type {Operation} */
  const op = { seq: nextSeq++, jobId, kind, state: 'running', startedAt: Date.now() };
  operations.push(op);
  changed();
  try {
    const { 'request-id': id } = await withToken(trigger);
    for (;;) {
      await new Promise((r) => setTimeout(r, 400));
      const r = await api.operation(jobId, id);
      if (r.status?.id !== 'COMPLETED') continue;
      const failure = r.operation?.['failure-cause'];
      if (failure) Object.assign(op, { state: 'failed', message: failure['stack-trace'] ?? 'unknown reason' });
      else Object.assign(op, { state: 'done', location: r.operation?.location });
      break;
    }
  } catch (e) {
    const gone = e instanceof ApiError && e.status === 0;
    Object.assign(op, { state: 'failed', message: gone ? 'the REST API stopped answering before the result could be read' : /** @type {Error} */ (e).message });
  }
  changed();
}

/**
 * Runs a mutating call; if the JobManager wants a token (it listens beyond loopback), asks for it and tries again.
 * @template T
 * @param {() => Promise<T>} call
 * @returns {Promise<T>}
 */
async function withToken(call) {
  try {
    return await call();
  } catch (e) {
    if (!(e instanceof ApiError) || e.status !== 401) throw e;
    if (!(await askForToken(e.message))) throw new Error('no token given');
    return call();
  }
}

/** @type {Promise<boolean> | null} */
let asking = null;

/**
 * Asks for the JobManager's rest.token after a 401 (the server's reason shown); resolves whether
 * one was given. Calls that fail together (the page's polls) share one dialog.
 * @param {string} reason
 * @returns {Promise<boolean>}
 */
export function askForToken(reason) {
  asking ??= ask({
    title: 'REST token needed',
    text: `This JobManager wants its rest.token: ${reason}`,
    fields: [{ name: 'token', label: 'rest.token', value: '', type: 'password' }],
    confirm: 'Send',
  }).then((answer) => {
    asking = null;
    if (!answer || !answer.token) return false;
    token.set(String(answer.token));
    return true;
  });
  return asking;
}

/** The savepoint directory to offer: the job's configured one, else the last one used here. @param {string} jobId */
async function defaultDirectory(jobId) {
  try {
    const c = await api.checkpointConfig(jobId);
    if (c.savepoint_directory) return String(c.savepoint_directory);
  } catch {
    // Offer the remembered one.
  }
  return localStorage.getItem(DIR_KEY) ?? '';
}

/** @param {string | boolean | undefined} dir */
function rememberDirectory(dir) {
  if (typeof dir === 'string' && dir) localStorage.setItem(DIR_KEY, dir);
}

// ---- the confirmation dialog ----

/**
 * @typedef {{ name: string, label: string, value?: string, placeholder?: string, hint?: string, type?: 'text' | 'checkbox' | 'password' }} Field
 */

/**
 * Shows a modal dialog; resolves with the fields' values on confirm, null on dismiss (or Escape).
 * @param {{ title: string, text: string, fields: Field[], confirm: string, dismiss?: string, danger?: boolean }} o
 * @returns {Promise<Record<string, string | boolean> | null>}
 */
function ask(o) {
  const dialog = /** @type {HTMLDialogElement} */ (h('dialog', { class: 'confirm', 'aria-labelledby': 'dialog-title' }));
  const inputs = o.fields.map((f) => {
    const input = /** @type {HTMLInputElement} */ (h('input', { type: f.type ?? 'text', name: f.name, placeholder: f.placeholder ?? null, spellcheck: 'false', autocomplete: 'off' }));
    if (f.type === 'checkbox') return { f, input, row: h('label', { class: 'check' }, input, ' ', f.label) };
    input.value = f.value ?? '';
    return { f, input, row: h('label', { class: 'field' }, h('span', null, f.label), input, f.hint ? h('small', null, f.hint) : null) };
  });
  const ok = h('button', { type: 'button', class: o.danger ? 'danger' : 'primary', 'data-role': 'confirm' }, o.confirm);
  const no = h('button', { type: 'button', 'data-role': 'dismiss' }, o.dismiss ?? 'Cancel');
  dialog.append(h('h2', { id: 'dialog-title' }, o.title), h('p', null, o.text), ...inputs.map((i) => i.row), h('div', { class: 'buttons' }, no, ok));
  document.body.append(dialog);
  return new Promise((resolve) => {
    /** @param {Record<string, string | boolean> | null} value */
    const close = (value) => {
      dialog.close();
      dialog.remove();
      resolve(value);
    };
    ok.addEventListener('click', () => close(Object.fromEntries(inputs.map(({ f, input }) => [f.name, f.type === 'checkbox' ? input.checked : input.value.trim()]))));
    no.addEventListener('click', () => close(null));
    dialog.addEventListener('cancel', (e) => {
      e.preventDefault();
      close(null);
    });
    dialog.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && e.target instanceof HTMLInputElement && e.target.type !== 'checkbox') ok.click();
    });
    dialog.showModal();
    (inputs.find((i) => i.f.type !== 'checkbox')?.input ?? ok).focus();
  });
}
