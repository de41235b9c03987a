import type { KeySelector } from '../../api/functions.ts';
import type { LocalAggregate, LocalPhase } from '../../api/windowing/local-aggregate.ts';
import { TimeWindow } from '../../api/windowing/window.ts';
import type { CheckpointType } from '../../network/stream-event.ts';
import { NO_TIMESTAMP, type RecordTimestamp } from '../../network/record-timestamp.ts';
import type { Key } from '../../state/key-group.ts';
import { stateKey } from '../../state/state-key.ts';
import { AbstractStreamOperator, type OperatorContext } from '../operators/stream-operator.ts';
import { MissingTimestampError } from './missing-timestamp-error.ts';

/** A key's accumulator of one window, until it is sent. */
interface Pending {
  readonly key: unknown;
  acc: unknown;
}

type Spec = LocalPhase & { readonly keySelector: KeySelector<unknown> };

/**
 * The first phase of a two-phase window aggregation, chained before the exchange: each record is
 * added here to its key's accumulator of its tumbling event-time window (or sliding window's
 * pane), so one key's records cross to the key's subtask as one accumulator per flush instead of
 * one by one (a skewed key no longer puts all the aggregation work on one subtask). It flushes a
 * window when the watermark passes it (before passing the watermark on, so nothing it sends is
 * late downstream), everything before a checkpoint barrier (Flink's prepareSnapshotPreBarrier:
 * what it aggregated is in the downstream state of that checkpoint, and it has nothing to
 * snapshot), at the end of input, and when it holds maxEntries accumulators.
 */
export class LocalWindowAggregateOperator extends AbstractStreamOperator {
  readonly #spec: Spec;
  /** Accumulators by window start, then by the key's state form. */
  readonly #windows = new Map<number, Map<Key, Pending>>();
  #entries = 0;
  #watermark = -Infinity;
  #time!: RecordTimestamp;
  #ctx!: OperatorContext;

  constructor(spec: Spec) {
    super();
    this.#spec = spec;
  }

  override open(ctx: OperatorContext): void {
    super.open(ctx);
    this.#ctx = ctx;
    this.#time = ctx.timestamps;
  }

  processElement(value: unknown): void {
    const ts = this.#time.current;
    if (ts === NO_TIMESTAMP) throw new MissingTimestampError(this.#ctx.operatorName, this.#ctx.operatorUid, value);
    const { size, offset, aggregate } = this.#spec;
    const start = TimeWindow.getWindowStartWithOffset(ts, offset, size);
    const key = this.#spec.keySelector(value) as Key;
    if (start + size - 1 <= this.#watermark) {
      // Late here, so late or within the allowed lateness downstream: sent at once, as the record would have been.
      this.#emit(start, { key, acc: aggregate.add(value, aggregate.createAccumulator()) });
      return;
    }
    let partials = this.#windows.get(start);
    if (partials === undefined) this.#windows.set(start, (partials = new Map()));
    const k = stateKey(key);
    const partial = partials.get(k);
    if (partial !== undefined) {
      partial.acc = aggregate.add(value, partial.acc);
      return;
    }
    partials.set(k, { key, acc: aggregate.add(value, aggregate.createAccumulator()) });
    if (++this.#entries >= this.#spec.maxEntries) this.#flushAll();
  }

  override processWatermark(watermark: number): void {
    this.#watermark = watermark;
    for (const start of [...this.#windows.keys()]) {
      if (start + this.#spec.size - 1 <= watermark) this.#flush(start);
    }
    super.processWatermark(watermark);
  }

  override prepareSnapshot(_checkpointId: number, _type: CheckpointType): void {
    this.#flushAll();
  }

  override endInput(): void {
    this.#flushAll();
  }

  #flushAll(): void {
    for (const start of [...this.#windows.keys()]) this.#flush(start);
  }

  #flush(start: number): void {
    const partials = this.#windows.get(start)!;
    this.#windows.delete(start);
    this.#entries -= partials.size;
    for (const p of partials.values()) this.#emit(start, p);
  }

  /** With the window's last millisecond as its timestamp (the second phase assigns it to the same window). */
  #emit(start: number, partial: LocalAggregate): void {
    const time = this.#time;
    const previous = time.current;
    time.current = start + this.#spec.size - 1;
    try {
      // The pending object itself: the first phase lets go of it here.
      this.output.collect(partial);
    } finally {
      time.current = previous;
    }
  }
}
