import { posix } from 'node:path';
import type { KeyedStateHandle } from '../../checkpoint/state-handles.ts';
import type { Key, KeyGroupRange } from '../key-group.ts';
import { rebaseHandle } from '../../checkpoint/incremental/shared-state-files.ts';
import { DirtyKeys } from './dirty-keys.ts';
import { handleWithin, type RestoredChain } from './restored-chain.ts';

/** What a keyed state backend's snapshot is for (KeyedStateBackend.snapshot). */
export interface SnapshotRequest {
  readonly checkpointId: number;
  readonly type: 'checkpoint' | 'savepoint';
  /**
   * Incremental checkpoints: the latest completed checkpoint when this one was triggered, which
   * the coordinator keeps the files of until this one is done (shared-state-registry.ts). Absent:
   * not incremental, the snapshot is full and canonical.
   */
  readonly incrementalBase?: number | null;
  /** Where the checkpoint goes: a restored chain is built on only by a checkpoint beside it (its handles name files relative to it). */
  readonly location?: string;
}

/** How an incremental checkpoint of one operator subtask is to be written. */
export interface IncrementalPlan {
  readonly checkpointId: number;
  /** The handle (base and deltas) the checkpoint builds on; null: write a full base (materialize). */
  readonly base: KeyedStateHandle | null;
  /** With a base: the keys changed since it, whose values (or removal) the delta holds. */
  readonly changed: DirtyKeys | null;
}

/** When a chain gets a new full base (FLIP-158's materialization). */
export interface MaterializationPolicy {
  /** At most this many deltas after a base. */
  readonly maxDeltas: number;
}

/**
 * One keyed state backend's side of incremental checkpoints: the keys changed between each two
 * snapshots, and the handles of the snapshots it wrote, so that a checkpoint writes only the keys
 * changed since the checkpoint it builds on. Which checkpoint that is the coordinator says with
 * each checkpoint (the latest completed one when it was triggered): a checkpoint that was aborted
 * is never built on, and its changes go into the next delta (every span since the base is).
 * A chain of too many deltas, or of more delta bytes than its base, is materialized: the
 * checkpoint writes a full base again.
 *
 * The first checkpoint after a restore builds on the restored chain when the coordinator names
 * the restored checkpoint as its base (it does only for a checkpoint it retains: the job's own,
 * or one it claimed; never another job's under NO_CLAIM, whose first checkpoint is full), the
 * subtask was restored from that one handle alone, and the handle holds none of another
 * subtask's key groups (a rescale). A chain in another job's location (claimed) is named from the
 * new checkpoint's location (rebaseHandle). Otherwise it is full.
 */
export class IncrementalSnapshots {
  readonly #policy: MaterializationPolicy;
  #current = new DirtyKeys();
  /** Changes between each two snapshots, sealed by the checkpoint that ended them, oldest first. */
  #spans: Array<{ readonly id: number; readonly dirty: DirtyKeys }> = [];
  /** The handles this backend wrote, by checkpoint id (until no checkpoint can build on them). */
  readonly #written = new Map<number, KeyedStateHandle>();
  /** Checkpoints before this one cannot be built on (a state was rewritten whole, or changed its serializer). */
  #minBase = 0;
  #fullNext = false;
  /** The chain restored from (restoredChain), while a checkpoint may still build on it. */
  #restored: RestoredChain | undefined;

  constructor(policy: MaterializationPolicy) {
    this.#policy = policy;
  }

  markDirty(state: string, keyGroup: number, key: Key): void {
    this.#current.add(state, keyGroup, key);
  }

  /** Every entry of some state changed (converted to a new serializer): the next checkpoint is a full base. */
  requireFull(): void {
    this.#fullNext = true;
  }

  /** The backend was restored from `chain` alone, its key groups `range`: the next checkpoint may build on it. */
  restored(chain: RestoredChain, range: KeyGroupRange): void {
    // Only a handle of shared files (an incremental checkpoint's); a savepoint's or a full checkpoint's own file is never shared.
    if (chain.handle.writtenBy === undefined || !handleWithin(chain.handle, range)) return;
    this.#restored = chain;
    this.#written.set(chain.checkpointId, chain.handle);
  }

  /** Called by the snapshot's synchronous part: undefined for a full canonical snapshot (a savepoint, or not incremental). */
  plan(request: SnapshotRequest | undefined): IncrementalPlan | undefined {
    if (request === undefined || request.type !== 'checkpoint' || request.incrementalBase === undefined) return undefined;
    const id = request.checkpointId;
    this.#spans.push({ id, dirty: this.#current });
    this.#current = new DirtyKeys();
    if (this.#fullNext) {
      this.#fullNext = false;
      this.#minBase = id;
    }
    const baseId = request.incrementalBase;
    const base = baseId === null || baseId < this.#minBase ? undefined : this.#baseFor(baseId, request.location);
    if (baseId !== null) {
      // Nothing older than the base will be built on again: the coordinator's bases only grow.
      this.#spans = this.#spans.filter((s) => s.id > baseId || base === undefined);
      for (const k of this.#written.keys()) if (k < baseId) this.#written.delete(k);
    }
    if (base === undefined || this.#materializes(base)) return { checkpointId: id, base: null, changed: null };
    return { checkpointId: id, base, changed: DirtyKeys.union(this.#spans.filter((s) => s.id > baseId!).map((s) => s.dirty)) };
  }

  /**
   * The handle of base `baseId` as a checkpoint at `location` names its files: as written, but a
   * restored chain that lies in another location (a claimed checkpoint of another job) renamed
   * to reach it from there; undefined (a full checkpoint) when no name does.
   */
  #baseFor(baseId: number, location: string | undefined): KeyedStateHandle | undefined {
    const handle = this.#written.get(baseId);
    const r = this.#restored;
    if (handle === undefined || r === undefined || r.checkpointId !== baseId) return handle;
    if (location === undefined) return undefined;
    if (posix.dirname(location) === posix.dirname(r.location)) return handle;
    return rebaseHandle(handle, r.location, location);
  }

  #materializes(base: KeyedStateHandle): boolean {
    const deltas = base.deltas ?? [];
    if (deltas.length >= this.#policy.maxDeltas) return true;
    return deltas.reduce((n, d) => n + d.bytes, 0) > base.bytes;
  }

  /** The asynchronous part wrote checkpoint `checkpointId` as `handle`: later checkpoints may build on it once it completes. */
  written(checkpointId: number, handle: KeyedStateHandle): void {
    if (handle.writtenBy === undefined && handle.deltas === undefined) return;
    // Its spans stay until a checkpoint names it (or a later one) as its base: it may yet be aborted.
    this.#written.set(checkpointId, handle);
  }
}
