import type { InputChannel } from '../network/input-channel.ts';
import type { ChannelItem } from '../network/stream-event.ts';

export interface GateItem {
  readonly channel: number;
  readonly item: ChannelItem;
}

/**
 * All input channels of one subtask. Channels are read round-robin, so one busy producer does
 * not starve the others; a channel can be blocked (barrier alignment holds it back).
 */
export class InputGate {
  readonly channels: readonly InputChannel[];
  readonly #blocked: Uint8Array;
  #next = 0;

  constructor(channels: readonly InputChannel[]) {
    this.channels = channels;
    this.#blocked = new Uint8Array(channels.length);
  }

  set onData(callback: () => void) {
    for (const c of this.channels) c.onData = callback;
  }

  pollNext(): GateItem | undefined {
    const n = this.channels.length;
    for (let i = 0; i < n; i++) {
      const c = (this.#next + i) % n;
      if (this.#blocked[c]) continue;
      const item = this.channels[c]!.poll();
      if (item !== undefined) {
        this.#next = (c + 1) % n;
        return { channel: c, item };
      }
    }
    return undefined;
  }

  block(channel: number): void {
    this.#blocked[channel] = 1;
  }

  unblock(channel: number): void {
    this.#blocked[channel] = 0;
  }

  unblockAll(): void {
    this.#blocked.fill(0);
  }

  isBlocked(channel: number): boolean {
    return this.#blocked[channel] === 1;
  }

  /** Items waiting in unblocked channels: is there work? */
  hasAvailable(): boolean {
    for (let c = 0; c < this.channels.length; c++) {
      if (!this.#blocked[c] && this.channels[c]!.size > 0) return true;
    }
    return false;
  }

  /** Flink's inPoolUsage: the share of the gate's buffers in use, over all its channels. */
  get usage(): number {
    let u = 0;
    for (const c of this.channels) u += c.usage;
    return this.channels.length === 0 ? 0 : u / this.channels.length;
  }

  /** Buffer debloating's budget per channel (Flink's debloatedBufferSize, per gate): bytes between TaskManagers, records within one. */
  get debloated(): { readonly bytes?: number; readonly records?: number } | undefined {
    let bytes: number | undefined;
    let records: number | undefined;
    for (const c of this.channels) {
      if (c.debloatedBufferSize !== undefined) bytes = Math.max(bytes ?? 0, c.debloatedBufferSize);
      if (c.debloatedBufferRecords !== undefined) records = Math.max(records ?? 0, c.debloatedBufferRecords);
    }
    if (bytes === undefined && records === undefined) return undefined;
    return { ...(bytes !== undefined ? { bytes } : {}), ...(records !== undefined ? { records } : {}) };
  }

  queuedItems(): number {
    let n = 0;
    for (const c of this.channels) n += c.size;
    return n;
  }
}
