import { ObjectStoreTimeoutError } from './nats/progress-deadline.ts';
import { isNatsError, isNatsUnavailable } from '../ha/nats/nats-errors.ts';
import { StreamLeaderUnknownError } from '../ha/nats/object-names.ts';

/** Errors of a store that may answer again: a restore that meets one is tried again, not given up. */
const UNREACHABLE_ERRNO = new Set(['ETIMEDOUT', 'ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

/**
 * Whether the checkpoint storage could not be reached (as opposed to holding something wrong):
 * an object store operation without progress, a NATS request without an answer, a refused or
 * dropped connection; not NATS that cannot be connected to at all (a wrong address, said at once). Looks through `cause` chains, where the clients' errors are kept.
 */
export function isStorageUnavailable(e: unknown): boolean {
  for (let x = e, depth = 0; x instanceof Error && depth < 8; x = x.cause, depth++) {
    // NATS that cannot be reached at all when connecting is a setting to fix, said at once.
    if (x.name === 'NatsConnectError') return false;
    if (x instanceof ObjectStoreTimeoutError || x instanceof StreamLeaderUnknownError) return true;
    // The HA stores' own verdict (a checkpoint id counter or pointer store that did not answer).
    if (x.name === 'HaStorageError' && (x as Error & { reason?: string }).reason === 'UNAVAILABLE') return true;
    const code = (x as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && UNREACHABLE_ERRNO.has(code)) return true;
    if (isNatsError(x) && isNatsUnavailable(x)) return true;
  }
  return false;
}
