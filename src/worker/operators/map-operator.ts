import type { MapFunction } from '../../api/functions.ts';
import { AbstractStreamOperator } from './stream-operator.ts';

export class MapOperator extends AbstractStreamOperator {
  readonly #fn: MapFunction<unknown, unknown>;
  constructor(fn: MapFunction<unknown, unknown>) {
    super();
    this.#fn = fn;
  }
  processElement(value: unknown): void {
    this.output.collect(this.#fn(value));
  }
}
