import type { Collector, KeyedContext, KeyedProcessFunction, KeySelector, RuntimeContext } from '../../api/functions.ts';
import type { Key } from '../../state/key-group.ts';
import type { KeyedStateBackend } from '../../state/keyed-state-backend.ts';
import { AbstractStreamOperator, type OperatorContext } from './stream-operator.ts';

export class KeyedProcessOperator extends AbstractStreamOperator {
  readonly #fn: KeyedProcessFunction<Key, unknown, unknown>;
  readonly #keySelector: KeySelector<unknown>;
  #backend!: KeyedStateBackend;
  #keyedContext!: KeyedContext<Key>;

  constructor(fn: KeyedProcessFunction<Key, unknown, unknown> | (() => KeyedProcessFunction<Key, unknown, unknown>), keySelector: KeySelector<unknown>) {
    super();
    // One function object per parallel instance: open() keeps per-subtask things (state handles,
    // the subtask index) on `this`, and subtasks in one thread share the job graph's object. A
    // factory makes a fresh one (class instances with #private fields need that); otherwise the
    // user's object is the prototype: its methods and fields are inherited, writes are not.
    this.#fn = typeof fn === 'function' ? fn() : (Object.create(fn) as KeyedProcessFunction<Key, unknown, unknown>);
    this.#keySelector = keySelector;
  }

  override async open(ctx: OperatorContext): Promise<void> {
    super.open(ctx);
    const backend = ctx.keyedState!;
    this.#backend = backend;
    this.#keyedContext = { getCurrentKey: () => backend.currentKey };
    const runtime: RuntimeContext = {
      jobId: ctx.jobId,
      operatorName: ctx.operatorName,
      operatorUid: ctx.operatorUid,
      subtaskIndex: ctx.subtaskIndex,
      parallelism: ctx.parallelism,
      maxParallelism: ctx.maxParallelism,
      attemptNumber: ctx.attemptNumber,
      log: ctx.log,
      getState: (d) => backend.getValueState(d),
      getListState: (d) => backend.getListState(d),
      getMapState: (d) => backend.getMapState(d),
      getReducingState: (d) => backend.getReducingState(d),
      getAggregatingState: (d) => backend.getAggregatingState(d),
    };
    await this.#fn.open?.(runtime);
  }

  processElement(value: unknown): void {
    this.#backend.setCurrentKey(this.#keySelector(value) as Key);
    this.#fn.processElement(value, this.#keyedContext, this.output as Collector<unknown>);
  }

  override endInput(): void {
    this.#fn.endInput?.(this.output as Collector<unknown>);
  }

  override async notifyCheckpointComplete(checkpointId: number): Promise<void> {
    await this.#fn.notifyCheckpointComplete?.(checkpointId);
  }

  override async notifyCheckpointAborted(checkpointId: number): Promise<void> {
    await this.#fn.notifyCheckpointAborted?.(checkpointId);
  }

  override async close(): Promise<void> {
    await this.#fn.close?.();
  }
}
