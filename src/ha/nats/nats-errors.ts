import { JetStreamApiError } from '@nats-io/jetstream';
import { HaStorageError } from '../ha-storage-error.ts';
import { KeyValueConflictError } from '../key-value-conflict-error.ts';

/** JetStream's "wrong last sequence": a compare-and-set at a revision that is no longer the key's. */
const WRONG_LAST_SEQUENCE = 10071;

/** A NATS client error as the HA layer's: a lost compare-and-set, or an unavailable / failed store. */
export function translateNatsError(e: unknown, operation: string, key: string, store: string, expectedRevision: number): Error {
  if (e instanceof JetStreamApiError && e.code === WRONG_LAST_SEQUENCE) return new KeyValueConflictError(key, expectedRevision, { cause: e });
  const err = e as Error;
  return new HaStorageError(isNatsUnavailable(err) ? 'UNAVAILABLE' : 'FAILED', operation, key, store, err.message, { cause: e });
}

/** The NATS client's own error classes by name (nats-core 3 names some without a Nats prefix), and weir's NATS errors. */
const NATS_CLIENT_ERRORS = new Set(['TimeoutError', 'NoResponders', 'NoRespondersError', 'ClosedConnectionError', 'DrainingConnectionError', 'ConnectionError', 'RequestError']);

/** An error the NATS client (or weir's NATS code) raised, as opposed to any other Error. */
export function isNatsError(err: Error): boolean {
  return NATS_CLIENT_ERRORS.has(err.name) || /^(Nats|JetStream)/.test(err.name);
}

/**
 * A NATS client error that says the server could not be reached or did not answer in time (it may
 * answer again). JetStreamNotEnabled is the client's name for "no responders" to a JetStream
 * request: a stream between two leaders (one node lost) answers so for seconds.
 */
export function isNatsUnavailable(err: Error): boolean {
  return err.name === 'JetStreamNotEnabled' || /timeout|closed|disconnect|no responders|connection|draining|503|temporarily unavailable/i.test(`${err.name} ${err.message}`);
}
