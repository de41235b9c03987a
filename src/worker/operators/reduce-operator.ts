import type { KeySelector, ReduceFunction } from '../../api/functions.ts';
import { ValueStateDescriptor } from '../../api/state-descriptors.ts';
import type { ValueState } from '../../api/state.ts';
import type { HeapKeyedStateBackend } from '../../state/heap-keyed-state-backend.ts';
import { AbstractStreamOperator, type OperatorContext } from './stream-operator.ts';

/** Rolling reduce per key (sum, min, max are reductions): emits the new aggregate after each record. */
export class ReduceOperator extends AbstractStreamOperator {
  static readonly STATE_NAME = '_reduce';
  readonly #fn: ReduceFunction<unknown>;
  readonly #keySelector: KeySelector<unknown>;
  #backend!: HeapKeyedStateBackend;
  #state!: ValueState<unknown>;

  constructor(fn: ReduceFunction<unknown>, keySelector: KeySelector<unknown>) {
    super();
    this.#fn = fn;
    this.#keySelector = keySelector;
  }

  override open(ctx: OperatorContext): void {
    super.open(ctx);
    this.#backend = ctx.keyedState!;
    this.#state = this.#backend.getValueState(new ValueStateDescriptor<unknown>(ReduceOperator.STATE_NAME));
  }

  processElement(value: unknown): void {
    this.#backend.setCurrentKey(this.#keySelector(value) as never);
    const current = this.#state.value();
    const next = current === undefined ? value : this.#fn(current, value);
    this.#state.update(next);
    this.output.collect(next);
  }
}
