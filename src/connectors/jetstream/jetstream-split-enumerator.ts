import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { EnumeratorContext, SplitEnumerator } from '../../api/source.ts';
import { connectJetStream, describeServers } from './jetstream-connection.ts';
import type { JetStreamSourceOptions } from './jetstream-source-options.ts';
import type { JetStreamSplit } from './jetstream-split.ts';
import { lookUpStream } from './stream-lookup.ts';
import { startSequence, subjectFilters, subjectsWithMessages } from './subject-discovery.ts';

/**
 * What the enumerator keeps in checkpoints: where subjects found later are read from, and every
 * subject it handed out (each is in exactly one reader's state, with its position, from the
 * checkpoint on whose trigger followed the assignment). Undefined before start() looked: a restore
 * from it starts over.
 */
export interface JetStreamEnumeratorState {
  readonly version: 1;
  readonly startSequence: number;
  readonly assigned: readonly string[];
}

/**
 * An unbounded source's split per subject (splitPerSubject): hands out the subjects that match
 * the filters at the start, then looks again every subjectDiscoveryIntervalMs and hands out the
 * new ones (Kafka's partition discovery), round-robin over the readers, without a restart. A
 * discovery that fails (NATS away) is logged and tried again at the next interval.
 */
export class JetStreamSplitEnumerator implements SplitEnumerator<JetStreamSplit, JetStreamEnumeratorState | undefined> {
  readonly #o: JetStreamSourceOptions<unknown>;
  readonly #ctx: EnumeratorContext<JetStreamSplit>;
  readonly #intervalMs: number;
  #state: JetStreamEnumeratorState | undefined;
  #connection: NatsConnection | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #discovering: Promise<void> | undefined;
  #closed: Promise<void> | undefined;
  #discoveries = 0;

  constructor(o: JetStreamSourceOptions<unknown>, ctx: EnumeratorContext<JetStreamSplit>, intervalMs: number, restored: JetStreamEnumeratorState | undefined) {
    this.#o = o;
    this.#ctx = ctx;
    this.#intervalMs = intervalMs;
    this.#state = restored;
  }

  async start(): Promise<void> {
    this.#connection = await connectJetStream(this.#o.connection, `weir source ${this.#o.stream} enumerator`);
    if (this.#state === undefined) {
      const info = await lookUpStream(await jetstreamManager(this.#connection), this.#o.stream, describeServers(this.#o.connection));
      const start = startSequence(this.#o, info);
      const subjects = await subjectsWithMessages(await jetstreamManager(this.#connection), this.#o.stream, subjectFilters(this.#o, info));
      this.#state = { version: 1, startSequence: start, assigned: [] };
      this.#assign(subjects);
    }
    this.#schedule();
  }

  handleSplitRequest(): void {
    // Splits are pushed as subjects are found; readers never run out in an unbounded source.
  }

  snapshotState(): JetStreamEnumeratorState | undefined {
    return this.#state;
  }

  metrics(): Record<string, number> {
    return { subjects: this.#state?.assigned.length ?? 0, subjectDiscoveries: this.#discoveries };
  }

  #schedule(): void {
    if (this.#closed) return;
    this.#timer = setTimeout(() => {
      this.#discovering = this.#discover()
        .catch((e: unknown) => this.#ctx.log.warn(`discovering new subjects of JetStream stream '${this.#o.stream}' failed (tried again in ${this.#intervalMs} ms): ${e instanceof Error ? e.message : String(e)}`))
        .finally(() => this.#schedule());
    }, this.#intervalMs);
    this.#timer.unref?.();
  }

  async #discover(): Promise<void> {
    const jsm = await jetstreamManager(this.#connection!);
    const info = await jsm.streams.info(this.#o.stream);
    const subjects = await subjectsWithMessages(jsm, this.#o.stream, subjectFilters(this.#o, info));
    this.#discoveries++;
    if (this.#closed) return;
    // After the awaits, all at once: a snapshot sees the subjects either assigned or not.
    this.#assign(subjects);
  }

  /** Hands the subjects not yet assigned to readers, round-robin in the order they were found. */
  #assign(subjects: readonly string[]): void {
    const s = this.#state!;
    const known = new Set(s.assigned);
    const fresh = subjects.filter((subject) => !known.has(subject));
    if (fresh.length === 0) return;
    const bySubtask = new Map<number, JetStreamSplit[]>();
    fresh.forEach((filter, i) => {
      const subtask = (s.assigned.length + i) % this.#ctx.parallelism;
      bySubtask.set(subtask, [...(bySubtask.get(subtask) ?? []), { filter, nextSequence: s.startSequence }]);
    });
    this.#state = { ...s, assigned: [...s.assigned, ...fresh] };
    for (const [subtask, splits] of bySubtask) this.#ctx.assignSplits(subtask, splits);
    if (s.assigned.length > 0) this.#ctx.log.info(`new subject(s) of JetStream stream '${this.#o.stream}' to read: ${fresh.join(', ')}`);
  }

  close(): Promise<void> {
    return (this.#closed ??= (async () => {
      clearTimeout(this.#timer);
      // Closing the connection ends a discovery waiting on NATS.
      await this.#connection?.close().catch(() => {});
      await this.#discovering;
    })());
  }
}
