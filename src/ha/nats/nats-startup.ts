import type { Clock } from '../../clock/clock.ts';
import type { Logger } from '../../log/logger.ts';
import { HaStorageError } from '../ha-storage-error.ts';
import { retryWithBackoff, RetryTimeoutError } from '../retry-with-backoff.ts';
import { NatsBucketError } from './nats-buckets.ts';
import { NatsConnectError } from './nats-connect-error.ts';
import { isNatsError, isNatsUnavailable } from './nats-errors.ts';
import type { NatsSettings } from './nats-settings.ts';
import { StreamLeaderUnknownError } from './object-names.ts';

/** The first pause between two attempts, and the longest: a fresh cluster is ready in seconds, one being restarted in minutes. */
const INITIAL_DELAY_MS = 250;
const MAX_DELAY_MS = 5000;

/** Names what an attempt is waiting for at the moment (for the log lines and the final error). */
export type StartupStep = (waitingFor: string) => void;

/**
 * Runs `attempt` (connect, open the buckets, check their layout) until NATS is ready, as Flink's
 * processes wait for ZooKeeper: a fresh cluster's servers must find each other and elect the
 * JetStream meta leader and each stream's leader first, and until then requests time out or find
 * no responder. Each failed attempt is logged with what it waited for, the attempt and the next
 * delay; errors no waiting can mend (credentials, a server too old, another cluster's bucket) end
 * it at once, and so does `timeoutMs` (high-availability.nats.startup-timeout), with a
 * NatsConnectError NOT_READY that names the servers and what was waited for.
 */
export async function waitForNats<T>(settings: NatsSettings, timeoutMs: number, log: Logger, attempt: (step: StartupStep) => Promise<T>, clock?: Clock): Promise<T> {
  let waitingFor = 'a server to connect to';
  const step: StartupStep = (what) => (waitingFor = what);
  const servers = settings.servers.join(', ');
  try {
    return await retryWithBackoff(() => attempt(step), {
      timeoutMs,
      initialDelayMs: INITIAL_DELAY_MS,
      maxDelayMs: MAX_DELAY_MS,
      retryable: isTransientAtStartup,
      onRetry: (r) =>
        log.warn(`waiting for NATS at ${servers}: ${waitingFor} (attempt ${r.attempt}: ${r.error.message}); next attempt in ${r.nextDelayMs} ms, ${Math.round(r.remainingMs)} ms left of high-availability.nats.startup-timeout`, {
          attempt: r.attempt,
          nextDelayMs: r.nextDelayMs,
          waitingFor,
        }),
      ...(clock ? { clock } : {}),
    });
  } catch (e) {
    if (!(e instanceof RetryTimeoutError)) throw e;
    const last = e.cause as Error;
    throw new NatsConnectError('NOT_READY', settings.servers, settings.serversKey, `not ready within ${timeoutMs} ms (high-availability.nats.startup-timeout), ${e.attempts} attempts; waited for ${waitingFor}: ${last.message}`, { cause: last });
  }
}

/** An error that a NATS cluster still forming (or regaining its quorum) gives, and that goes away by itself. */
export function isTransientAtStartup(e: Error): boolean {
  if (e instanceof NatsConnectError) return e.reason === 'UNREACHABLE' || e.reason === 'NO_JETSTREAM';
  // Too few servers for the replicas: in a cluster whose servers have not all joined yet.
  if (e instanceof NatsBucketError) return e.reason === 'UNAVAILABLE' || e.reason === 'INSUFFICIENT_RESOURCES';
  if (e instanceof HaStorageError) return e.reason === 'UNAVAILABLE';
  if (e instanceof StreamLeaderUnknownError) return true;
  // The object store's reads and writes raise the client's own errors.
  return isNatsError(e) && isNatsUnavailable(e);
}
