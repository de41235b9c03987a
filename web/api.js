// @ts-check
// The JobManager's REST API (Flink's paths and field names), as the dashboard calls it. The
// answers' types are the server's own (src/rest/rest-views.ts): the type check of web/ fails when
// a page reads a field the server does not send.
/**
 * @import { CancelView, CheckpointConfigView, CheckpointDetailsView, CheckpointsOverviewView, CheckpointSubtasksView,
 *   ErrorView, JobDetailsView, JobExceptionsView, JobsOverviewView, OperationStatusView, OverviewView,
 *   SavepointTriggerView, TaskManagersView, JobManagerConfigView, PipelineView } from '../src/rest/rest-views.ts'
 */

const TOKEN_KEY = 'weir.rest-token';

export class ApiError extends Error {
  /** @param {string} message @param {number} status */
  constructor(message, status) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
  }
}

/**
 * Who answered the latest call: a standby JobManager forwards every request to the leader and
 * names it in x-weir-leader (src/cluster/leader-proxy.ts); null when the JobManager the page was
 * loaded from answered itself.
 */
export const answeredBy = { leader: /** @type {string | null} */ (null) };

/** The JobManager's rest.token, once the user gave it: sent with every call (reads may need it too). */
export const token = {
  get() {
    return sessionStorage.getItem(TOKEN_KEY) ?? '';
  },
  /** @param {string} value */
  set(value) {
    if (value) sessionStorage.setItem(TOKEN_KEY, value);
    else sessionStorage.removeItem(TOKEN_KEY);
  },
};

/**
 * @template T the answer's type (the route's view)
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body]
 * @returns {Promise<T>}
 */
async function call(method, path, body) {
  /** @type {Record<string, string>} */
  const headers = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (token.get()) headers.authorization = `Bearer ${token.get()}`;
  let res;
  try {
    res = await fetch(path, { method, headers, cache: 'no-store', signal: AbortSignal.timeout(5000), ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  } catch (e) {
    throw new ApiError(`the REST API did not answer (${e instanceof Error ? e.message : String(e)})`, 0);
  }
  answeredBy.leader = res.headers.get('x-weir-leader');
  const text = await res.text();
  /** @type {unknown} */
  let json = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  if (!res.ok) throw new ApiError(/** @type {Partial<ErrorView> | null} */ (json)?.errors?.join('; ') || `${res.status} ${res.statusText}`, res.status);
  return /** @type {T} */ (json);
}

/** @param {string} id */
const job = (id) => `/jobs/${encodeURIComponent(id)}`;

export const api = {
  /** @returns {Promise<OverviewView>} */
  overview: () => call('GET', '/overview'),
  /** @returns {Promise<JobsOverviewView>} */
  jobs: () => call('GET', '/jobs/overview'),
  /** @param {string} id @returns {Promise<JobDetailsView>} */
  job: (id) => call('GET', job(id)),
  /** A pipeline's tables (404 for other jobs). @param {string} id @returns {Promise<PipelineView>} */
  pipeline: (id) => call('GET', `${job(id)}/pipeline`),
  /** @param {string} id @returns {Promise<JobExceptionsView>} */
  exceptions: (id) => call('GET', `${job(id)}/exceptions`),
  /** @param {string} id @returns {Promise<CheckpointsOverviewView>} */
  checkpoints: (id) => call('GET', `${job(id)}/checkpoints`),
  /** @param {string} id @returns {Promise<CheckpointConfigView>} */
  checkpointConfig: (id) => call('GET', `${job(id)}/checkpoints/config`),
  /** @param {string} id @param {number} cid @returns {Promise<CheckpointDetailsView>} */
  checkpoint: (id, cid) => call('GET', `${job(id)}/checkpoints/details/${cid}`),
  /** @param {string} id @param {number} cid @param {string} vertex @returns {Promise<CheckpointSubtasksView>} */
  checkpointSubtasks: (id, cid, vertex) => call('GET', `${job(id)}/checkpoints/details/${cid}/subtasks/${encodeURIComponent(vertex)}`),
  /** @param {string} id @param {string} dir @returns {Promise<SavepointTriggerView>} */
  triggerSavepoint: (id, dir) => call('POST', `${job(id)}/savepoints`, dir ? { 'target-directory': dir } : {}),
  /** @param {string} id @param {string} dir @param {boolean} drain @returns {Promise<SavepointTriggerView>} */
  stop: (id, dir, drain) => call('POST', `${job(id)}/stop`, { ...(dir ? { targetDirectory: dir } : {}), drain }),
  /** @param {string} id @param {string} trigger @returns {Promise<OperationStatusView>} */
  operation: (id, trigger) => call('GET', `${job(id)}/savepoints/${encodeURIComponent(trigger)}`),
  /** @param {string} id @returns {Promise<CancelView>} */
  cancel: (id) => call('PATCH', `${job(id)}?mode=cancel`),
  /** A JobManager process's TaskManagers (a `weir run` has none: 404). @returns {Promise<TaskManagersView>} */
  taskManagers: () => call('GET', '/taskmanagers'),
  /** @returns {Promise<JobManagerConfigView>} */
  jobManagerConfig: () => call('GET', '/jobmanager/config'),
};
