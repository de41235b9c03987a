import type { TypeInfo } from '../serialization/type-info.ts';
import type { Key } from '../state/key-group.ts';
import type {
  FilterFunction,
  FlatMapFunction,
  KeyedProcessFunction,
  KeySelector,
  MapFunction,
  ReduceFunction,
} from './functions.ts';
import type { Sink } from './sink.ts';
import type { TwoPhaseCommittingSink } from './two-phase-committing-sink.ts';
import type { Source } from './source.ts';
import type { OutputTag } from './output-tag.ts';
import type { ProcessFunction } from './process-function.ts';
import type { WatermarkStrategy } from './watermark-strategy.ts';
import type { WindowDefinition } from './windowing/window-definition.ts';
import type { AsyncFunction, AsyncOutputMode } from './async-function.ts';
import type { AsyncRetryStrategy } from './async-retry-strategy.ts';
import type { CoProcessFunction, KeyedCoProcessFunction } from './co-process-function.ts';
import type { BroadcastProcessFunction, KeyedBroadcastProcessFunction } from './broadcast-process-function.ts';
import type { MapStateDescriptor } from './state-descriptors.ts';
import type { LocalPhase } from './windowing/local-aggregate.ts';
import type { ProcessJoinFunction } from './process-join-function.ts';

/** A user function, or a factory that makes one per parallel instance. */
type PerInstance<F> = F | (() => F);

/**
 * The logical plan the API records. It names what each operator does without knowing how the
 * runtime runs it; the worker turns each spec into a running operator.
 */
export type OperatorSpec =
  | {
      readonly kind: 'source';
      readonly source: Source<unknown, unknown>;
      /** Timestamps and watermarks made per split (env.fromSource(source, { watermarks })). */
      readonly watermarks?: WatermarkStrategy<unknown> | undefined;
    }
  /** stream.assignTimestampsAndWatermarks(strategy): timestamps and watermarks made anew. */
  | { readonly kind: 'timestamps-watermarks'; readonly strategy: WatermarkStrategy<unknown> }
  /** A ProcessFunction on a stream that is not keyed: no keyed state, no timers. */
  | { readonly kind: 'process'; readonly fn: ProcessFunction<unknown, unknown> | (() => ProcessFunction<unknown, unknown>) }
  | { readonly kind: 'map'; readonly fn: MapFunction<unknown, unknown> }
  | { readonly kind: 'flatMap'; readonly fn: FlatMapFunction<unknown, unknown> }
  | { readonly kind: 'filter'; readonly fn: FilterFunction<unknown> }
  | {
      readonly kind: 'keyed-process';
      /** The function, or a factory that makes one per parallel instance. */
      readonly fn: KeyedProcessFunction<Key, unknown, unknown> | (() => KeyedProcessFunction<Key, unknown, unknown>);
      readonly keySelector: KeySelector<unknown>;
    }
  | { readonly kind: 'reduce'; readonly fn: ReduceFunction<unknown>; readonly keySelector: KeySelector<unknown> }
  /** keyBy(...).window(assigner)... (or windowAll): window state and timers are keyed state. */
  | { readonly kind: 'window'; readonly keySelector: KeySelector<unknown>; readonly window: WindowDefinition }
  /**
   * The first phase of .window(...).localAggregation().aggregate(fn): before the exchange, an
   * accumulator per key and tumbling event-time window (a sliding window's pane, of `size`), sent
   * on as a LocalAggregate when the watermark passes the window, before each checkpoint barrier,
   * at the end of input, or when it holds maxEntries of them. It keeps nothing across a
   * checkpoint, so it has no state.
   */
  | ({ readonly kind: 'local-window-aggregate'; readonly keySelector: KeySelector<unknown> } & LocalPhase)
  | { readonly kind: 'sink'; readonly sink: Sink<unknown, unknown> | TwoPhaseCommittingSink<unknown, unknown> }
  /** AsyncDataStream.orderedWait/unorderedWait: records waiting for their results are operator state. */
  | {
      readonly kind: 'async';
      readonly mode: AsyncOutputMode;
      readonly fn: AsyncFunction<unknown, unknown>;
      readonly capacity: number;
      readonly timeoutMs: number;
      readonly onTimeout?: (input: unknown) => Iterable<unknown>;
      readonly retry?: AsyncRetryStrategy<unknown>;
    }
  /** a.connect(b).process(...) (and map/flatMap): two inputs that are not keyed. */
  | { readonly kind: 'co-process'; readonly fn: PerInstance<CoProcessFunction<unknown, unknown, unknown>> }
  /** a.keyBy(k1).connect(b.keyBy(k2)).process(...): one key selector per input, keyed state and timers shared by key. */
  | {
      readonly kind: 'keyed-co-process';
      readonly fn: PerInstance<KeyedCoProcessFunction<Key, unknown, unknown, unknown>>;
      readonly keySelectors: readonly [KeySelector<unknown>, KeySelector<unknown>];
      /** Where the user connected the streams, for errors found only at run time (mismatched keys). */
      readonly definedAt: string | undefined;
    }
  /** a.keyBy(k1).intervalJoin(b.keyBy(k2)).between(lower, upper).process(fn): both sides buffered in keyed state until the watermark passes them. */
  | {
      readonly kind: 'interval-join';
      readonly fn: PerInstance<ProcessJoinFunction<unknown, unknown, unknown>>;
      readonly keySelectors: readonly [KeySelector<unknown>, KeySelector<unknown>];
      /** Inclusive bounds in ms: a right record joins a left one when left.ts + lowerMs <= right.ts <= left.ts + upperMs. */
      readonly lowerMs: number;
      readonly upperMs: number;
      /** Where late records of each side go (none: they are dropped and counted). */
      readonly lateTags: readonly [OutputTag<unknown> | undefined, OutputTag<unknown> | undefined];
      readonly definedAt: string | undefined;
    }
  /** stream.connect(rules.broadcast(descriptors)).process(...): input 1 is broadcast, its state in every subtask. */
  | { readonly kind: 'broadcast-process'; readonly fn: PerInstance<BroadcastProcessFunction<unknown, unknown, unknown>>; readonly broadcast: BroadcastSpec }
  | {
      readonly kind: 'keyed-broadcast-process';
      readonly fn: PerInstance<KeyedBroadcastProcessFunction<Key, unknown, unknown, unknown>>;
      readonly keySelector: KeySelector<unknown>;
      readonly broadcast: BroadcastSpec;
    };

/** The broadcast state a broadcast stream declares (rules.broadcast(descriptors)), and where. */
export interface BroadcastSpec {
  readonly descriptors: readonly MapStateDescriptor<unknown, unknown>[];
  /** Where the user called broadcast(descriptors), for errors about its state. */
  readonly definedAt: string | undefined;
}

export type OperatorKind = OperatorSpec['kind'];

export type PartitionerSpec =
  | { readonly kind: 'forward' }
  | { readonly kind: 'rebalance' }
  | { readonly kind: 'broadcast' }
  | { readonly kind: 'hash'; readonly keySelector: KeySelector<unknown> };

export type TransformationSpec =
  | OperatorSpec
  | { readonly kind: 'partition'; readonly partitioner: PartitionerSpec }
  | { readonly kind: 'union' }
  /** The records an operator emitted to a side output (getSideOutput(tag)). */
  | { readonly kind: 'side-output'; readonly tag: OutputTag<unknown> };

export interface OperatorSettings {
  name?: string;
  uid?: string;
  parallelism?: number;
  maxParallelism?: number;
  /** false starts a new chain at this operator (Flink's disableChaining). */
  chaining?: boolean;
  /**
   * The type of the records this operator emits (Flink's returns(TypeInformation)): records that
   * cross threads or hosts are written by a codec compiled from it. Undeclared, a type is inferred
   * from the records, with a schemaless fallback when they change shape.
   */
  returns?: TypeInfo;
}

export interface Transformation {
  readonly id: number;
  readonly spec: TransformationSpec;
  readonly inputs: readonly Transformation[];
  readonly settings: OperatorSettings;
  /** Where the user created it, for error messages. */
  readonly createdAt: string | undefined;
}

