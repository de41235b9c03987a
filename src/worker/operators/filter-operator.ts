import type { FilterFunction } from '../../api/functions.ts';
import { AbstractStreamOperator } from './stream-operator.ts';

export class FilterOperator extends AbstractStreamOperator {
  readonly #fn: FilterFunction<unknown>;
  constructor(fn: FilterFunction<unknown>) {
    super();
    this.#fn = fn;
  }
  processElement(value: unknown): void {
    if (this.#fn(value)) this.output.collect(value);
  }
}
