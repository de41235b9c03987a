import type { Collector } from '../../api/functions.ts';
import type { CoProcessFunction } from '../../api/co-process-function.ts';
import type { ProcessFunction } from '../../api/process-function.ts';
import { ProcessOperator } from './process-operator.ts';
import type { TwoInputStreamOperator } from './stream-operator.ts';
import { perInstance, taggedRecord, type TaggedRecord } from './tagged-record.ts';

/**
 * Runs a CoProcessFunction (Flink's CoProcessOperator): a ProcessOperator whose function sends
 * each record to processElement1 or 2 by the input it came from; the watermark is the minimum
 * over both inputs, as the task's input gives it.
 */
export class CoProcessOperator extends ProcessOperator implements TwoInputStreamOperator {
  readonly inputCount = 2;
  readonly #tag = taggedRecord();

  constructor(fn: CoProcessFunction<unknown, unknown, unknown> | (() => CoProcessFunction<unknown, unknown, unknown>)) {
    super(() => coProcessAdapter(perInstance(fn)));
  }

  override processElement(value: unknown): void {
    this.processElement1(value);
  }

  processElement1(value: unknown): void {
    this.#tag.input = 0;
    this.#tag.value = value;
    super.processElement(this.#tag);
  }

  processElement2(value: unknown): void {
    this.#tag.input = 1;
    this.#tag.value = value;
    super.processElement(this.#tag);
  }
}

function coProcessAdapter(fn: CoProcessFunction<unknown, unknown, unknown>): ProcessFunction<TaggedRecord, unknown> {
  return {
    open: (ctx) => fn.open?.(ctx),
    processElement: (r, ctx, out) => (r.input === 0 ? fn.processElement1(r.value, ctx, out) : fn.processElement2(r.value, ctx, out)),
    endInput: (out: Collector<unknown>) => fn.endInput?.(out),
    close: () => fn.close?.(),
  };
}
