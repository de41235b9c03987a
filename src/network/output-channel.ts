import type { ChannelItem, StreamEvent } from './stream-event.ts';

/**
 * The sending end of a channel with credit-based flow control: a record buffer leaves only
 * against a credit the receiver granted; otherwise it waits in a short backlog. When the
 * backlog is full the channel is not writable and the writing task stops taking input: that is
 * backpressure, and it travels upstream channel by channel to the sources.
 */
export abstract class OutputChannel {
  readonly #backlog: ChannelItem[] = [];
  readonly #maxBacklog: number;
  #credits: number;
  #onWritable: (() => void) | undefined;

  constructor(initialCredits: number, maxBacklog: number) {
    this.#credits = initialCredits;
    this.#maxBacklog = maxBacklog;
  }

  get writable(): boolean {
    return this.#backlog.length < this.#maxBacklog;
  }

  get credits(): number {
    return this.#credits;
  }

  /** Items waiting for credit, oldest first: an unaligned checkpoint persists them as channel state. */
  get backlog(): readonly ChannelItem[] {
    return this.#backlog;
  }

  set onWritable(callback: (() => void) | undefined) {
    this.#onWritable = callback;
  }

  send(item: ChannelItem): void {
    if (this.#backlog.length === 0 && (item.kind !== 'records' || this.#credits > 0)) {
      if (item.kind === 'records') this.#credits--;
      this.transmit(item, false);
    } else {
      this.#backlog.push(item);
    }
  }

  /** Sends an event ahead of everything queued (unaligned barriers). */
  sendPriority(event: StreamEvent): void {
    this.transmit(event, true);
  }

  /** The record buffers waiting for credit, oldest first (an unaligned snapshot persists a copy). */
  backlogRecords(): unknown[][] {
    const taken: unknown[][] = [];
    for (let i = 0; i < this.#backlog.length; i++) {
      const item = this.#backlog[i]!;
      if (item.kind === 'records') taken.push(item.records);
    }
    return taken;
  }

  addCredit(n: number): void {
    this.#credits += n;
    const wasWritable = this.writable;
    while (this.#backlog.length > 0) {
      const head = this.#backlog[0]!;
      if (head.kind === 'records') {
        if (this.#credits === 0) break;
        this.#credits--;
      }
      this.#backlog.shift();
      this.transmit(head, false);
    }
    if (!wasWritable && this.writable) this.#onWritable?.();
  }

  /** Bytes of the record buffers sent, where the channel serializes them (0 where buffers are handed over). */
  get bytesOut(): number {
    return 0;
  }

  abstract close(): void;
  protected abstract transmit(item: ChannelItem, priority: boolean): void;
}
