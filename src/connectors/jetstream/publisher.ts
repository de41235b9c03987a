import type { JetStreamClient, PubAck } from '@nats-io/jetstream';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { SinkError } from '../../api/sink-error.ts';
import type { StagedMessage } from './jetstream-committable.ts';
import { payloadOf } from './staged-message.ts';

/**
 * Publishes with up to `maxInFlight` acks outstanding (one connection keeps them in order), and
 * checks every ack: a subject that the configured stream does not capture is refused for good.
 */
export class Publisher {
  readonly #js: JetStreamClient;
  readonly #stream: string;
  readonly #target: string;
  readonly #maxInFlight: number;
  readonly #inFlight = new Set<Promise<void>>();
  #failure: unknown;
  /** Publications the server reported as duplicates (dropped by their message id). */
  duplicates = 0;
  published = 0;

  constructor(js: JetStreamClient, stream: string, target: string, maxInFlight: number) {
    this.#js = js;
    this.#stream = stream;
    this.#target = target;
    this.#maxInFlight = maxInFlight;
  }

  get inFlight(): number {
    return this.#inFlight.size;
  }

  /** Sends one message; resolves once there is room for the next (the ack comes later, see drain). */
  async publish(m: StagedMessage, msgId?: string): Promise<void> {
    this.throwIfFailed();
    const h = m.headers ? natsHeaders() : undefined;
    if (h && m.headers) for (const [k, v] of Object.entries(m.headers)) h.set(k, v);
    const ack = this.#js.publish(m.subject, payloadOf(m), { ...(msgId !== undefined ? { msgID: msgId } : {}), ...(h ? { headers: h } : {}) });
    const done: Promise<void> = ack.then(
      (a) => this.#acked(a, m.subject),
      (e: unknown) => {
        this.#failure ??= e;
      },
    );
    const tracked = done.finally(() => this.#inFlight.delete(tracked));
    this.#inFlight.add(tracked);
    if (this.#inFlight.size >= this.#maxInFlight) await this.room();
  }

  /** Resolves when fewer than maxInFlight acks are outstanding. */
  async room(): Promise<void> {
    while (this.#inFlight.size >= this.#maxInFlight) await Promise.race(this.#inFlight);
    this.throwIfFailed();
  }

  /** Every publication so far is acknowledged (or the first failure is thrown). */
  async drain(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.all([...this.#inFlight]);
    this.throwIfFailed();
  }

  throwIfFailed(): void {
    if (this.#failure === undefined) return;
    const e = this.#failure;
    throw e;
  }

  /** Forget a failure after it was reported (the committer retries the whole commit). */
  reset(): void {
    this.#failure = undefined;
  }

  #acked(a: PubAck, subject: string): void {
    if (a.stream !== this.#stream) {
      this.#failure ??= new SinkError('TARGET_MISMATCH', this.#target, `subject ${subject} is captured by stream '${a.stream}', not by '${this.#stream}': the sink's subjects must be inside the stream's`);
      return;
    }
    if (a.duplicate) this.duplicates++;
    else this.published++;
  }
}
