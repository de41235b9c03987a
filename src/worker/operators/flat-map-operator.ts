import type { FlatMapFunction } from '../../api/functions.ts';
import { AbstractStreamOperator } from './stream-operator.ts';

export class FlatMapOperator extends AbstractStreamOperator {
  readonly #fn: FlatMapFunction<unknown, unknown>;
  constructor(fn: FlatMapFunction<unknown, unknown>) {
    super();
    this.#fn = fn;
  }
  processElement(value: unknown): void {
    const out = this.output;
    const result = this.#fn(value, out);
    if (result === undefined) return;
    if (Array.isArray(result)) {
      for (let i = 0; i < result.length; i++) out.collect(result[i]);
    } else {
      for (const v of result) out.collect(v);
    }
  }
}
