/**
 * The one lifecycle of weir's long-lived parts (Flink's AutoCloseableAsync and the start/stop of
 * its services, in one contract): started once, stopped once with a reason, both awaited. Stop is
 * idempotent: a second call waits for the first. Short-lived handles (a connection, a file, a
 * reader) are `close()`d; something borrowed from a pool (a slot, a ring) is `release()`d; a
 * checkpoint's stored files are `discard()`ed. No other names for these ideas.
 */
export interface Service {
  start(): Promise<void>;
  stop(reason: StopReason): Promise<void>;
}

/**
 * Why a service stops. The code decides how: `lost` ends it at once without asking (it no longer
 * answers), the others let it finish its work within its limits.
 */
export type StopReason =
  /** Its owner ends normally: the job finished or was cancelled, the process shuts down. */
  | { readonly code: 'shutdown' }
  /** It no longer answers (heartbeat timeout, thread or process gone): end it without asking. */
  | { readonly code: 'lost'; readonly cause?: Error }
  /** A newer one takes its place (a restart's new attempt, a new leader). */
  | { readonly code: 'replaced' }
  /** Its owner failed: stop what can be stopped and keep the cause for the log. */
  | { readonly code: 'failed'; readonly cause: Error };

export const SHUTDOWN: StopReason = { code: 'shutdown' };

/** How a stop reason reads in a log line. */
export function describeStopReason(reason: StopReason): string {
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
