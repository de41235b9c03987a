import type { TypeInfo } from '../serialization/type-info.ts';

/**
 * Names a side output of an operator (Flink's OutputTag): records emitted to it with
 * `ctx.output(tag, value)` (or a window's late records, `sideOutputLateData(tag)`) form the
 * stream `getSideOutput(tag)` returns. Tags are told apart by id; `type` declares the records'
 * type as `returns()` does for a main output.
 */
export class OutputTag<T> {
  readonly id: string;
  readonly type: TypeInfo | undefined;
  /** Carries T for the type checker only. */
  declare readonly __type?: T;

  constructor(id: string, type?: TypeInfo) {
    if (typeof id !== 'string' || id === '') throw new TypeError('an OutputTag needs a non-empty id');
    this.id = id;
    this.type = type;
  }

  getId(): string {
    return this.id;
  }

  toString(): string {
    return `OutputTag(${this.id})`;
  }
}
