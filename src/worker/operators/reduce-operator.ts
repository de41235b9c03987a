import { fieldAggregateOf } from '../../api/field-aggregator.ts';
import type { KeySelector, ReduceFunction } from '../../api/functions.ts';
import { ValueStateDescriptor } from '../../api/state-descriptors.ts';
import type { Key } from '../../state/key-group.ts';
import { AbstractStreamOperator, type OperatorContext } from './stream-operator.ts';

/** Rolling reduce per key (sum, min, max are reductions): emits the new aggregate after each record. */
export class ReduceOperator extends AbstractStreamOperator {
  static readonly STATE_NAME = '_reduce';
  readonly #fn: ReduceFunction<unknown>;
  readonly #keySelector: KeySelector<unknown>;
  #fold!: (key: Key, value: unknown) => unknown;

  constructor(fn: ReduceFunction<unknown>, keySelector: KeySelector<unknown>) {
    super();
    this.#fn = fn;
    this.#keySelector = keySelector;
  }

  override open(ctx: OperatorContext): void {
    super.open(ctx);
    const descriptor = new ValueStateDescriptor<unknown>(ReduceOperator.STATE_NAME);
    // sum, min and max of a field keep their state in place; snapshots hold the same aggregate.
    const inPlace = fieldAggregateOf(this.#fn);
    this.#fold = inPlace ? ctx.keyedState!.inPlaceFolder(descriptor, inPlace) : ctx.keyedState!.valueFolder(descriptor, this.#fn);
  }

  processElement(value: unknown): void {
    this.output.collect(this.#fold(this.#keySelector(value) as Key, value));
  }
}
