import type { MessagePort } from 'node:worker_threads';
import { Packr, Unpackr } from 'msgpackr';
import type { InputChannel } from './input-channel.ts';
import { OutputChannel } from './output-channel.ts';
import type { ChannelItem, StreamEvent } from './stream-event.ts';

/**
 * A channel between worker threads. Record buffers travel as one MessagePack block each (the
 * bytes are transferred, not copied again); credits flow back on the same port.
 */
type Wire =
  | { readonly t: 'records'; readonly b: Uint8Array }
  | { readonly t: 'event'; readonly e: StreamEvent; readonly p: boolean }
  | { readonly t: 'credit'; readonly n: number };

class PortOutputChannel extends OutputChannel {
  readonly #port: MessagePort;
  readonly #packr = new Packr({ useRecords: true, moreTypes: true });
  #bytesOut = 0;

  constructor(port: MessagePort, credits: number, maxBacklog: number) {
    super(credits, maxBacklog);
    this.#port = port;
    port.on('message', (m: Wire) => {
      if (m.t === 'credit') this.addCredit(m.n);
    });
  }

  protected transmit(item: ChannelItem, priority: boolean): void {
    if (item.kind === 'records') {
      // pack() returns a view into a reused buffer; slice gives the message bytes of its own.
      const bytes = Uint8Array.prototype.slice.call(this.#packr.pack(item.records)) as Uint8Array;
      this.#bytesOut += bytes.byteLength;
      this.#port.postMessage({ t: 'records', b: bytes } satisfies Wire, [bytes.buffer as ArrayBuffer]);
    } else {
      this.#port.postMessage({ t: 'event', e: item, p: priority } satisfies Wire);
    }
  }

  override get bytesOut(): number {
    return this.#bytesOut;
  }

  close(): void {
    this.#port.close();
  }
}

export function connectPortOutput(port: MessagePort, credits: number, maxBacklog: number): OutputChannel {
  return new PortOutputChannel(port, credits, maxBacklog);
}

export function connectPortInput(port: MessagePort, input: InputChannel): () => void {
  const unpackr = new Unpackr({ useRecords: true, moreTypes: true });
  input.creditReturn = (n) => port.postMessage({ t: 'credit', n } satisfies Wire);
  port.on('message', (m: Wire) => {
    if (m.t === 'records') {
      input.deliver({ kind: 'records', records: unpackr.unpack(m.b) as unknown[], bytes: m.b.byteLength });
    } else if (m.t === 'event') {
      if (m.p) input.deliverPriority(m.e);
      else input.deliver(m.e);
    }
  });
  return () => port.close();
}
