import type { KeyedCoProcessFunction } from '../../api/co-process-function.ts';
import type { Collector, KeyedContext, RuntimeContext } from '../../api/functions.ts';
import type { MapState } from '../../api/state.ts';
import { MapStateDescriptor } from '../../api/state-descriptors.ts';
import type { ProcessJoinContext, ProcessJoinFunction } from '../../api/process-join-function.ts';
import type { OperatorSpec } from '../../api/transformation.ts';
import { MIN_WATERMARK } from '../../api/watermark.ts';
import type { Key } from '../../state/key-group.ts';
import { IntervalJoinError } from './interval-join-error.ts';
import { KeyedCoProcessOperator } from './keyed-co-process-operator.ts';
import type { OperatorContext } from './stream-operator.ts';
import { perInstance } from './tagged-record.ts';

type IntervalJoinSpec = Extract<OperatorSpec, { kind: 'interval-join' }>;

/** What the join needs of its operator once it is open: where output timestamps, late-record counts and side outputs go. */
interface JoinOutputs {
  ctx: OperatorContext | undefined;
}

/**
 * Flink's IntervalJoinOperator: each side's records are kept in keyed map state by timestamp
 * (`interval-join-left` / `-right`, a list per timestamp), and each record is joined with the
 * other side's records of its key whose timestamps fall within the bounds. An event-time timer
 * per record removes it once the watermark has passed the last time a record of the other side
 * could still join it (its timestamp plus the bound, when positive). Records behind the watermark
 * are late: dropped and counted, or sent to the side's late output. Both buffers are keyed state,
 * so they are in every checkpoint.
 */
export class IntervalJoinOperator extends KeyedCoProcessOperator {
  readonly #outputs: JoinOutputs;

  constructor(spec: IntervalJoinSpec) {
    const outputs: JoinOutputs = { ctx: undefined };
    super(() => new IntervalJoinFunction(spec, perInstance(spec.fn), outputs), spec.keySelectors, spec.definedAt);
    this.#outputs = outputs;
  }

  override open(ctx: OperatorContext): Promise<void> {
    this.#outputs.ctx = ctx;
    return super.open(ctx);
  }
}

class IntervalJoinFunction implements KeyedCoProcessFunction<Key, unknown, unknown, unknown> {
  readonly #spec: IntervalJoinSpec;
  readonly #fn: ProcessJoinFunction<unknown, unknown, unknown>;
  readonly #outputs: JoinOutputs;
  #left!: MapState<number, unknown[]>;
  #right!: MapState<number, unknown[]>;
  #leftTs = 0;
  #rightTs = 0;
  readonly #joinContext: ProcessJoinContext;

  constructor(spec: IntervalJoinSpec, fn: ProcessJoinFunction<unknown, unknown, unknown>, outputs: JoinOutputs) {
    this.#spec = spec;
    this.#fn = fn;
    this.#outputs = outputs;
    this.#joinContext = {
      leftTimestamp: () => this.#leftTs,
      rightTimestamp: () => this.#rightTs,
      timestamp: () => Math.max(this.#leftTs, this.#rightTs),
      output: (tag, value) => this.#outputs.ctx?.sideOutput(tag.id)?.collect(value),
    };
  }

  async open(runtime: RuntimeContext): Promise<void> {
    this.#left = runtime.getMapState(new MapStateDescriptor<number, unknown[]>('interval-join-left'));
    this.#right = runtime.getMapState(new MapStateDescriptor<number, unknown[]>('interval-join-right'));
    await this.#fn.open?.(runtime);
  }

  processElement1(value: unknown, ctx: KeyedContext<Key>, out: Collector<unknown>): void {
    this.#process(value, ctx, out, 0);
  }

  processElement2(value: unknown, ctx: KeyedContext<Key>, out: Collector<unknown>): void {
    this.#process(value, ctx, out, 1);
  }

  #process(value: unknown, ctx: KeyedContext<Key>, out: Collector<unknown>, side: 0 | 1): void {
    const ts = ctx.timestamp();
    const op = this.#outputs.ctx!;
    if (ts === undefined) throw new IntervalJoinError(op.operatorName, op.operatorUid, side, this.#spec.definedAt);
    const watermark = ctx.timerService().currentWatermark();
    if (watermark !== MIN_WATERMARK && ts < watermark) {
      const tag = this.#spec.lateTags[side];
      if (tag !== undefined) ctx.output(tag, value);
      else op.metrics.numLateRecordsDropped++;
      return;
    }
    const { lowerMs, upperMs } = this.#spec;
    const [ours, theirs] = side === 0 ? [this.#left, this.#right] : [this.#right, this.#left];
    // Seen from the right, the bounds turn around: a left record joins when right.ts - upper <= left.ts <= right.ts - lower.
    const [lo, hi] = side === 0 ? [lowerMs, upperMs] : [-upperMs, -lowerMs];
    const bucket = ours.get(ts);
    if (bucket === undefined) ours.put(ts, [value]);
    else {
      bucket.push(value);
      ours.put(ts, bucket);
    }
    for (const [t, others] of theirs.entries()) {
      if (t < ts + lo || t > ts + hi) continue;
      for (const other of others) {
        if (side === 0) this.#emit(value, other, ts, t, out);
        else this.#emit(other, value, t, ts, out);
      }
    }
    ctx.timerService().registerEventTimeTimer(hi > 0 ? ts + hi : ts);
  }

  #emit(left: unknown, right: unknown, leftTs: number, rightTs: number, out: Collector<unknown>): void {
    this.#leftTs = leftTs;
    this.#rightTs = rightTs;
    const time = this.#outputs.ctx!.timestamps;
    const previous = time.current;
    time.current = Math.max(leftTs, rightTs);
    try {
      this.#fn.processElement(left, right, this.#joinContext, out);
    } finally {
      time.current = previous;
    }
  }

  /**
   * A cleanup timer at `time`: the left records stamped `time - upper` (or `time`, upper <= 0) and
   * the right ones stamped `time + lower` (or `time`, lower > 0) can join nothing more. Which side
   * registered it does not matter: records found at those timestamps are due at this time anyway.
   */
  onTimer(time: number): void {
    const { lowerMs, upperMs } = this.#spec;
    this.#left.remove(upperMs <= 0 ? time : time - upperMs);
    this.#right.remove(lowerMs <= 0 ? time + lowerMs : time);
  }

  close(): void | Promise<void> {
    return this.#fn.close?.();
  }
}
