import type { MessagePort } from 'node:worker_threads';
import { Packr, Unpackr } from 'msgpackr';
import type { InputChannel } from './input-channel.ts';
import { OutputChannel } from './output-channel.ts';
import type { LocalChannelOptions } from './local-channel.ts';
import type { Barrier, RecordBuffer, StreamEvent } from './stream-event.ts';

/**
 * A channel between worker threads. Record buffers travel as one MessagePack block each (the
 * bytes are transferred, not copied again); credits flow back on the same port.
 */
type Wire =
  | { readonly t: 'records'; readonly b: Uint8Array }
  | { readonly t: 'event'; readonly e: StreamEvent; readonly p: boolean }
  | { readonly t: 'credit'; readonly n: number }
  | { readonly t: 'convert'; readonly id: number };

class PortOutputChannel extends OutputChannel {
  readonly #port: MessagePort;
  readonly #packr = new Packr({ useRecords: true, moreTypes: true });
  readonly #batchSize: number;
  readonly #capacity: number;
  #credits: number;
  #batch: unknown[] = [];
  #bytesOut = 0;

  constructor(port: MessagePort, o: LocalChannelOptions) {
    super(o.clock, o.maxBacklog ?? 2);
    this.#port = port;
    this.#credits = o.credits;
    this.#capacity = o.credits;
    this.#batchSize = o.batchSize;
    port.on('message', (m: Wire) => {
      if (m.t !== 'credit') return;
      this.#credits += m.n;
      this.drainBacklog();
    });
  }

  emit(record: unknown): void {
    const batch = this.#batch;
    batch.push(record);
    if (batch.length >= this.#batchSize) this.flush();
  }

  flush(): void {
    const records = this.#batch;
    if (records.length === 0) return;
    this.#batch = [];
    const buffer: RecordBuffer = { kind: 'records', records, bytes: 0 };
    if (this.backlog.length > 0 || !this.transmitQueued(buffer)) this.backlog.push(buffer);
  }

  sendPriority(event: StreamEvent): void {
    this.#port.postMessage({ t: 'event', e: event, p: true } satisfies Wire);
  }

  protected convertDelivered(barrier: Barrier): void {
    this.#port.postMessage({ t: 'convert', id: barrier.checkpointId } satisfies Wire);
  }

  protected transmitEvent(event: StreamEvent): boolean {
    this.#port.postMessage({ t: 'event', e: event, p: false } satisfies Wire);
    return true;
  }

  protected transmitQueued(item: RecordBuffer): boolean {
    if (this.#credits === 0) return false;
    this.#credits--;
    // pack() returns a view into a reused buffer; slice gives the message bytes of its own.
    const bytes = Uint8Array.prototype.slice.call(this.#packr.pack(item.records)) as Uint8Array;
    this.#bytesOut += bytes.byteLength;
    this.#port.postMessage({ t: 'records', b: bytes } satisfies Wire, [bytes.buffer as ArrayBuffer]);
    return true;
  }

  protected unsentBatch(): readonly unknown[] {
    return this.#batch;
  }

  get usage(): number {
    return this.#capacity === 0 ? 0 : (this.#capacity - this.#credits) / this.#capacity;
  }

  override get bytesOut(): number {
    return this.#bytesOut;
  }

  close(): void {
    this.cancelConversions();
    this.#port.close();
  }
}

export function connectPortOutput(port: MessagePort, options: LocalChannelOptions): OutputChannel {
  return new PortOutputChannel(port, options);
}

export function connectPortInput(port: MessagePort, input: InputChannel): () => void {
  const unpackr = new Unpackr({ useRecords: true, moreTypes: true });
  input.creditReturn = (n) => port.postMessage({ t: 'credit', n } satisfies Wire);
  port.on('message', (m: Wire) => {
    if (m.t === 'records') {
      input.deliver({ kind: 'records', records: unpackr.unpack(m.b) as unknown[], bytes: m.b.byteLength });
    } else if (m.t === 'convert') {
      input.convertBarrier(m.id);
    } else if (m.t === 'event') {
      if (m.p) input.deliverPriority(m.e);
      else input.deliver(m.e);
    }
  });
  return () => port.close();
}
