import { InputChannel } from './input-channel.ts';
import { OutputChannel } from './output-channel.ts';
import type { ChannelItem, StreamEvent } from './stream-event.ts';

/** Both ends in one TaskManager: buffers are handed over by reference, nothing is serialized. */
class LocalOutputChannel extends OutputChannel {
  readonly #input: InputChannel;
  constructor(input: InputChannel, credits: number, maxBacklog: number) {
    super(credits, maxBacklog);
    this.#input = input;
  }
  protected transmit(item: ChannelItem, priority: boolean): void {
    if (priority) this.#input.deliverPriority(item as StreamEvent);
    else this.#input.deliver(item);
  }
  close(): void {}
}

export function connectLocal(input: InputChannel, credits: number, maxBacklog: number): OutputChannel {
  const output = new LocalOutputChannel(input, credits, maxBacklog);
  input.creditReturn = (n) => output.addCredit(n);
  return output;
}
