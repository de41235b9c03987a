import type { JetStreamClient, PubAck } from '@nats-io/jetstream';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { SinkError } from '../../api/sink-error.ts';
import type { StagedMessage } from './jetstream-committable.ts';
import { payloadOf } from './staged-message.ts';

/**
 * Publishes with up to `maxInFlight` acks outstanding (one connection keeps them in order), and
 * checks every ack: a subject that the configured stream does not capture is refused for good.
 * Acks are counted rather than kept, and waiters are woken when there is room or nothing is left
 * in flight, so a message costs one promise (the client's).
 */
export class Publisher {
  readonly #js: JetStreamClient;
  readonly #stream: string;
  readonly #target: string;
  readonly #maxInFlight: number;
  #inFlight = 0;
  #failure: unknown;
  #waiters: Array<{ readonly below: number; readonly resolve: () => void }> = [];
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
    return this.#inFlight;
  }

  /** Sends one message; its ack is checked when it comes (see room and drain). */
  publish(m: StagedMessage, msgId?: string): void {
    this.throwIfFailed();
    let h;
    if (m.headers) {
      h = natsHeaders();
      for (const [k, v] of Object.entries(m.headers)) h.set(k, v);
    }
    this.#inFlight++;
    this.#js.publish(m.subject, payloadOf(m), { ...(msgId !== undefined ? { msgID: msgId } : {}), ...(h ? { headers: h } : {}) }).then(
      (a) => this.#settled(a, m.subject),
      (e: unknown) => {
        this.#failure ??= e;
        this.#settled(undefined, m.subject);
      },
    );
  }

  /** A promise while maxInFlight acks are outstanding; undefined when there is room. Rejects with the first failure. */
  room(): Promise<void> | undefined {
    this.throwIfFailed();
    if (this.#inFlight < this.#maxInFlight) return undefined;
    return this.#until(this.#maxInFlight);
  }

  /** Every publication so far is acknowledged (or the first failure is thrown). */
  async drain(): Promise<void> {
    if (this.#inFlight > 0) await this.#until(1);
    this.throwIfFailed();
  }

  throwIfFailed(): void {
    if (this.#failure === undefined) return;
    throw this.#failure;
  }

  #until(below: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#waiters.push({
        below,
        resolve: () => (this.#failure !== undefined && below > 1 ? reject(this.#failure as Error) : resolve()),
      });
    });
  }

  #settled(a: PubAck | undefined, subject: string): void {
    this.#inFlight--;
    if (a !== undefined) {
      if (a.stream !== this.#stream) this.#failure ??= new SinkError('TARGET_MISMATCH', this.#target, `subject ${subject} is captured by stream '${a.stream}', not by '${this.#stream}': the sink's subjects must be inside the stream's`);
      else if (a.duplicate) this.duplicates++;
      else this.published++;
    }
    if (this.#waiters.length === 0) return;
    const due = this.#waiters.filter((w) => this.#inFlight < w.below || (this.#failure !== undefined && w.below > 1));
    if (due.length === 0) return;
    this.#waiters = this.#waiters.filter((w) => !due.includes(w));
    for (const w of due) w.resolve();
  }
}
