import type { ChannelItem } from './stream-event.ts';

/**
 * The receiving end of a channel. It holds at most the granted credits' worth of record buffers
 * (plus events) and grants a credit back for each buffer taken out.
 */
export class InputChannel {
  readonly index: number;
  /** Which producer this channel comes from, for error messages and checkpoint reasons. */
  readonly description: string;
  readonly #queue: ChannelItem[] = [];
  #head = 0;
  #returnCredit: (n: number) => void = () => {};
  #onData: (() => void) | undefined;

  constructor(index: number, description: string) {
    this.index = index;
    this.description = description;
  }

  set creditReturn(fn: (n: number) => void) {
    this.#returnCredit = fn;
  }

  set onData(callback: (() => void) | undefined) {
    this.#onData = callback;
  }

  get size(): number {
    return this.#queue.length - this.#head;
  }

  deliver(item: ChannelItem): void {
    this.#queue.push(item);
    this.#onData?.();
  }

  /** Puts a priority event in front of everything queued. */
  deliverPriority(item: ChannelItem): void {
    this.#queue.splice(this.#head, 0, item);
    this.#onData?.();
  }

  peek(): ChannelItem | undefined {
    return this.#head < this.#queue.length ? this.#queue[this.#head] : undefined;
  }

  poll(): ChannelItem | undefined {
    if (this.#head >= this.#queue.length) return undefined;
    const item = this.#queue[this.#head]!;
    this.#queue[this.#head++] = undefined as unknown as ChannelItem;
    if (this.#head > 64 && this.#head * 2 > this.#queue.length) {
      this.#queue.splice(0, this.#head);
      this.#head = 0;
    }
    if (item.kind === 'records') this.#returnCredit(1);
    return item;
  }

  /** The queued items, oldest first, without taking them. */
  queued(): ChannelItem[] {
    return this.#queue.slice(this.#head);
  }
}
