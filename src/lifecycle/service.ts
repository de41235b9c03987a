/**
 * The stop half of the lifecycle, for long-lived parts whose start is their construction (a
 * factory that connects or listens) or a call with arguments of its own (`startContending`,
 * `start(attempt)`): stopped once with a reason, awaited. Stop is idempotent: a second call
 * waits for the first.
 */
export interface Stoppable {
  stop(reason: StopReason): Promise<void>;
}

/**
 * The one lifecycle of weir's long-lived parts (Flink's AutoCloseableAsync and the start/stop of
 * its services, in one contract): started once, stopped once with a reason, both awaited.
 *
 * One name per idea, and no other names for these: a long-lived part is `start()`ed and
 * `stop(reason)`ped; a short-lived handle (a connection, a channel, a client, a reader, an
 * operator, a keyed state backend) is `close()`d; something borrowed from a pool or held of
 * another's (a slot, a ring's segment, a table's snapshot version, a shared connection) is
 * `release()`d; files that are no longer needed (a checkpoint's location, a staged copy of one, a
 * compiled job) are `discard()`ed. An operator is `finish()`ed at the end of its input (flush,
 * emit) before it is closed, as in Flink 1.14+.
 */
export interface Service extends Stoppable {
  start(): Promise<void>;
}

/**
 * Why a service stops. The code decides how: `lost` ends it at once without asking (it no longer
 * answers), the others let it finish its work within its limits. `detail` is the owner's words
 * for it where logs, failure messages or errors have always named the occasion (`job canceled`):
 * the code alone cannot say which job status ended a job's services.
 */
export type StopReason =
  /** Its owner ends normally: the job finished or was cancelled, the process shuts down. */
  | { readonly code: 'shutdown'; readonly detail?: string }
  /** It no longer answers (heartbeat timeout, thread or process gone): end it without asking. */
  | { readonly code: 'lost'; readonly cause?: Error; readonly detail?: string }
  /** A newer one takes its place (a restart's new attempt, a new leader). */
  | { readonly code: 'replaced'; readonly detail?: string }
  /** Its owner failed: stop what can be stopped and keep the cause for the log. */
  | { readonly code: 'failed'; readonly cause: Error; readonly detail?: string };

export const SHUTDOWN: StopReason = { code: 'shutdown' };

/** How a stop reason reads in a log line: the owner's words when it gave them. */
export function describeStopReason(reason: StopReason): string {
  if (reason.detail !== undefined) return reason.detail;
  switch (reason.code) {
    case 'shutdown':
      return 'shut down';
    case 'lost':
      return reason.cause ? `lost: ${reason.cause.message}` : 'lost';
    case 'replaced':
      return 'replaced';
    case 'failed':
      return `failed: ${reason.cause.message}`;
  }
}
