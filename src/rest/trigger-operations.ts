import { randomBytes } from 'node:crypto';

/** Which of Flink's operation caches a trigger id lives in: a stop is a savepoint operation too. */
export type OperationKind = 'savepoint' | 'checkpoint';

export interface TriggeredOperation<Outcome> {
  /** Set once the operation completed: what it made, or why it failed. */
  outcome?: Outcome;
  /** Whether a client has read the completed result (a stop's client polls after the job ended). */
  fetched: boolean;
}

/** A trigger id as Flink's TriggerId: 32 lower-case hex characters. */
export const TRIGGER_ID_PATTERN = '^[0-9a-f]{32}$';

/**
 * The operations started by POST and polled by GET, by trigger id (Flink's
 * CompletedOperationCache). A client may choose the trigger id; a second trigger with an id the
 * job already has of that kind is the same operation again (Flink's idempotent retry): nothing new
 * starts and the client polls the first.
 */
export class TriggerOperations {
  readonly #operations = new Map<string, TriggeredOperation<unknown>>();

  /** Starts `work` under `triggerId` (or a new random id) unless that id is taken; returns the id. */
  start<Outcome>(jobId: string, kind: OperationKind, triggerId: string | undefined, work: () => Promise<Outcome>, failed: (e: Error) => Outcome): string {
    const id = triggerId ?? randomBytes(16).toString('hex');
    const key = `${jobId}/${kind}/${id}`;
    if (this.#operations.has(key)) return id;
    const op: TriggeredOperation<Outcome> = { fetched: false };
    this.#operations.set(key, op);
    work().then(
      (outcome) => (op.outcome = outcome),
      (e: Error) => (op.outcome = failed(e)),
    );
    return id;
  }

  get<Outcome>(jobId: string, kind: OperationKind, triggerId: string): TriggeredOperation<Outcome> | undefined {
    return this.#operations.get(`${jobId}/${kind}/${triggerId}`) as TriggeredOperation<Outcome> | undefined;
  }

  /** Whether every operation's result has been read or is still to come. */
  get anyUnread(): boolean {
    return [...this.#operations.values()].some((op) => !op.fetched);
  }
}
