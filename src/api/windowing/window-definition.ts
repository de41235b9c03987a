import type { ReduceFunction } from '../functions.ts';
import type { OutputTag } from '../output-tag.ts';
import type { AggregateFunction } from '../state-descriptors.ts';
import type { ProcessWindowFunction } from './process-window-function.ts';
import type { Trigger } from './trigger.ts';
import type { Window } from './window.ts';
import type { WindowAssigner } from './window-assigner.ts';

type AnyWindowFunction = ProcessWindowFunction<unknown, unknown, unknown, Window>;

/** How a window's records become its result: incrementally (reduce, aggregate) or from all of them (process). */
export type WindowFunctionSpec =
  | { readonly kind: 'reduce'; readonly reduce: ReduceFunction<unknown>; readonly windowFunction: AnyWindowFunction | (() => AnyWindowFunction) | undefined }
  | { readonly kind: 'aggregate'; readonly aggregate: AggregateFunction<unknown, unknown, unknown>; readonly windowFunction: AnyWindowFunction | (() => AnyWindowFunction) | undefined }
  | { readonly kind: 'process'; readonly windowFunction: AnyWindowFunction | (() => AnyWindowFunction) };

/** What `keyBy(...).window(assigner)...` (or windowAll) recorded: the window operator's plan. */
export interface WindowDefinition {
  readonly assigner: WindowAssigner<unknown, Window>;
  /** undefined: the assigner's default trigger. */
  readonly trigger: Trigger<unknown, Window> | undefined;
  readonly allowedLateness: number;
  readonly lateDataTag: OutputTag<unknown> | undefined;
  readonly fn: WindowFunctionSpec;
  describe(): string;
}
