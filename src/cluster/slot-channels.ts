import { channelKey } from '../ids/task-key.ts';
import type { RemoteChannelEndpoint, SlotDeployment, SlotLocation } from '../rpc/task-executor-gateway.ts';
import { Doorbell } from '../network/doorbell.ts';
import { SegmentRing } from '../network/segment-ring.ts';
import type { DataPlane } from './data-plane.ts';

/** What the slot of a torn-down channel is told when the channel's connection fails. */
export type ChannelFailed = (endpoint: RemoteChannelEndpoint, reason: string) => void;

interface Held {
  readonly attempt: number;
  readonly close: () => void;
}

/**
 * The rings of a TaskManager process's slots. The JobMaster sends no memory to a process; for a
 * deploy, this makes every remote channel's ring before the slot's thread sees it: a channel
 * between two slots of this process gets one ring, which both slots' deploys find under the
 * channel's name; a channel to another process gets a ring here and a sender (output) or a
 * receiver (input) on the data plane, whose receiving ring has room for twice the credit window.
 * The writer of every ring a slot reads rings that slot's doorbell of the deploy (made here too):
 * the slot's thread waits on it alone. A ring to another process is read by its sender on this
 * process's main thread, which waits on the ring.
 */
export class SlotChannels {
  readonly #id: string;
  readonly #data: DataPlane;
  /** Rings between two slots of this process: made by the first of the two deploys, taken by the second. */
  readonly #shared = new Map<string, SegmentRing>();
  /** Each slot's doorbell of a deploy, by job, attempt and slot index: made by whichever deploy needs it first. */
  readonly #doorbells = new Map<string, Doorbell>();
  readonly #held = new Map<string, Held[]>();

  constructor(taskManagerId: string, data: DataPlane) {
    this.#id = taskManagerId;
    this.#data = data;
  }

  /** The deploy as the slot's thread (slot `index` of the job) gets it: every remote channel with its ring. */
  prepare(allocation: string, index: number, deploy: SlotDeployment, failed: ChannelFailed): SlotDeployment {
    const locations = deploy.locations ?? {};
    this.release(allocation, deploy.attempt - 1);
    const held = this.#held.get(allocation) ?? [];
    this.#held.set(allocation, held);
    const doorbellOf = (slot: number): Doorbell => {
      const key = `${deploy.jobId}:${deploy.attempt}:${slot}`;
      let bell = this.#doorbells.get(key);
      if (!bell) {
        bell = Doorbell.create();
        this.#doorbells.set(key, bell);
        held.push({ attempt: deploy.attempt, close: () => this.#doorbells.delete(key) });
      }
      return bell;
    };
    const remoteChannels = deploy.remoteChannels.map((e): RemoteChannelEndpoint => {
      const key = `${deploy.jobId}:${deploy.attempt}:${channelKey(e.edgeId, e.producer, e.consumer)}`;
      const peer: SlotLocation | undefined = locations[e.peer];
      if (!peer) throw new Error(`the deploy says nothing of where TaskManager ${e.peer} runs`);
      if (peer.taskManagerId === this.#id) {
        let ring = this.#shared.get(key);
        if (ring) this.#shared.delete(key);
        else {
          ring = SegmentRing.create(e.shape);
          this.#shared.set(key, ring);
          held.push({ attempt: deploy.attempt, close: () => this.#shared.delete(key) });
        }
        const doorbell = doorbellOf(e.role === 'output' ? e.peer : index).buffer;
        return { ...e, ring: ring.buffer, doorbell };
      }
      if (e.role === 'output') {
        const ring = SegmentRing.create(e.shape);
        held.push({ attempt: deploy.attempt, close: this.#data.send(peer, key, ring, (reason) => failed(e, reason)) });
        return { ...e, ring: ring.buffer };
      }
      const shape = { segments: e.shape.segments * 2, segmentSize: e.shape.segmentSize };
      const doorbell = doorbellOf(index);
      const ring = SegmentRing.create(shape, doorbell);
      held.push({ attempt: deploy.attempt, close: this.#data.receive(key, ring, e.shape.segments, (reason) => failed(e, reason)) });
      return { ...e, ring: ring.buffer, shape, doorbell: doorbell.buffer };
    });
    return { ...deploy, remoteChannels };
  }

  /** Tears down the slot's channels of attempts up to `attempt` (all of them when undefined). */
  release(allocation: string, attempt?: number): void {
    const held = this.#held.get(allocation);
    if (!held) return;
    const keep = held.filter((h) => attempt !== undefined && h.attempt > attempt);
    for (const h of held) if (!keep.includes(h)) h.close();
    if (keep.length > 0) this.#held.set(allocation, keep);
    else this.#held.delete(allocation);
  }
}
