/**
 * Broadcast state used where it cannot be: a descriptor that the broadcast stream did not declare,
 * a write from the non-broadcast side (whose copies would drift apart), or a broadcast descriptor
 * used for keyed state. The same records fail the same way after a restart: the job fails at once.
 */
export class BroadcastStateError extends Error {
  readonly operator: string;
  readonly uid: string;
  readonly descriptor: string;
  /** Where the user called broadcast(descriptors). */
  readonly definedAt: string | undefined;
  readonly unrecoverable = true;

  constructor(operator: string, uid: string, descriptor: string, problem: string, definedAt: string | undefined) {
    super(`operator '${operator}' (uid ${uid}), broadcast state '${descriptor}': ${problem}${definedAt ? ` (the stream was broadcast at ${definedAt})` : ''}`);
    this.name = 'BroadcastStateError';
    this.operator = operator;
    this.uid = uid;
    this.descriptor = descriptor;
    this.definedAt = definedAt;
  }
}
