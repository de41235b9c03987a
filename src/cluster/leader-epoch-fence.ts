import type { TaskManagerMessage } from '../rpc/control-protocol.ts';
import { StaleLeaderEpochError } from './stale-leader-epoch-error.ts';

/** What the fence needs of a connection to a JobManager: its address, to name it. */
export interface FencedConnection {
  readonly address: string;
}

export type FenceVerdict =
  /** Act on it; `epoch` is the one it was sent under (undefined without high availability). */
  | { readonly kind: 'accepted'; readonly epoch: number | undefined }
  | { readonly kind: 'refused'; readonly error: StaleLeaderEpochError };

export interface LeaderEpochFenceOptions<C, S> {
  /** A slot started under an epoch older than the newest: its subtasks must stop now. */
  readonly cancel: (slot: S, epoch: number, newest: number) => void;
  /** A connection to a JobManager of an older epoch: it should be closed (its JobManager no longer leads). */
  readonly leave: (connection: C, epoch: number, newest: number) => void;
}

/**
 * A TaskManager's fence against deposed leaders (Flink's fencing tokens, kept on the receiving
 * side): it knows the newest leader epoch seen from any source (leader retrieval through NATS, the
 * `registered` reply, any message stamped with a higher epoch) and
 *
 *   - refuses a message whose epoch is older than the newest (a paused old leader that resumes
 *     may not know it was deposed; its commits, deploys and triggers must not be acted on),
 *   - cancels every slot started under an older epoch, and leaves every connection of one, the
 *     moment a newer epoch is seen, whichever source says so: it does not wait for the old
 *     leader to say or close anything, since a paused leader cannot.
 *
 * A message's epoch is its stamp, or, unstamped (0), the epoch of its connection (what leader
 * retrieval named when it was opened, raised by the stamps that came over it). Without high
 * availability there is neither: every message is accepted and nothing is cancelled, as before.
 */
export class LeaderEpochFence<C extends FencedConnection, S> {
  readonly #o: LeaderEpochFenceOptions<C, S>;
  #newest = 0;
  readonly #connections = new Map<C, number | undefined>();
  readonly #slots = new Map<S, number>();

  constructor(o: LeaderEpochFenceOptions<C, S>) {
    this.#o = o;
  }

  /** The newest leader epoch seen; 0 before any. */
  get newest(): number {
    return this.#newest;
  }

  epochOf(connection: C): number | undefined {
    return this.#connections.get(connection);
  }

  /** Whether something of this epoch has been superseded (never without an epoch). */
  isStale(epoch: number | undefined): boolean {
    return epoch !== undefined && epoch < this.#newest;
  }

  /** A connection was opened to the leader retrieval named with `epoch` (undefined: a fixed address). */
  connected(connection: C, epoch: number | undefined): void {
    this.#connections.set(connection, epoch);
  }

  disconnected(connection: C): void {
    this.#connections.delete(connection);
  }

  /**
   * A leader epoch seen, `from` a connection when a message stamped it: a newer one than any
   * before cancels the slots and leaves the connections of older epochs.
   */
  observe(epoch: number, from?: C): void {
    if (from !== undefined && this.#connections.has(from) && (this.#connections.get(from) ?? 0) < epoch) this.#connections.set(from, epoch);
    if (epoch <= this.#newest) return;
    const newest = (this.#newest = epoch);
    // State first, callbacks after: they may end slots and connections, which lands back here.
    const slots = [...this.#slots].filter(([, e]) => e < newest);
    const connections = [...this.#connections].filter((c): c is [C, number] => c[1] !== undefined && c[1] < newest);
    for (const [slot] of slots) this.#slots.delete(slot);
    for (const [slot, e] of slots) this.#o.cancel(slot, e, newest);
    for (const [connection, e] of connections) this.#o.leave(connection, e, newest);
  }

  /** Whether a message that came over `connection` may be acted on; a newer epoch it carries is observed first. */
  admit(connection: C, message: TaskManagerMessage): FenceVerdict {
    const stamped = message.leaderEpoch > 0 ? message.leaderEpoch : undefined;
    const epoch = stamped ?? this.#connections.get(connection);
    if (epoch === undefined) return { kind: 'accepted', epoch: undefined };
    if (epoch < this.#newest) {
      const messageType = message.type === 'toSlot' ? `toSlot/${message.message.type}` : message.type;
      return { kind: 'refused', error: new StaleLeaderEpochError({ messageType, epoch, newestEpoch: this.#newest, jobManager: connection.address }) };
    }
    if (stamped !== undefined) this.observe(stamped, connection);
    return { kind: 'accepted', epoch };
  }

  /** A slot starts under `epoch`; false (it must not start) when that epoch has been superseded meanwhile. */
  slotStarted(slot: S, epoch: number | undefined): boolean {
    if (epoch === undefined) return true;
    if (this.isStale(epoch)) return false;
    this.#slots.set(slot, epoch);
    return true;
  }

  slotEnded(slot: S): void {
    this.#slots.delete(slot);
  }
}
