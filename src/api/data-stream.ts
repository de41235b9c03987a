import type { Key } from '../state/key-group.ts';
import type {
  FilterFunction,
  FlatMapFunction,
  KeyedProcessFunction,
  KeySelector,
  MapFunction,
  ReduceFunction,
} from './functions.ts';
import { fieldAggregator } from './field-aggregator.ts';
import type { Sink } from './sink.ts';
import { isTwoPhaseCommittingSink, type TwoPhaseCommittingSink } from './two-phase-committing-sink.ts';
import type { StreamExecutionEnvironment } from './stream-execution-environment.ts';
import type { OperatorSettings, Transformation, TransformationSpec } from './transformation.ts';
import { checkTypeInfo } from '../serialization/check-type-info.ts';
import { OutputTag } from './output-tag.ts';
import type { ProcessFunction } from './process-function.ts';
import { WatermarkStrategy } from './watermark-strategy.ts';
import type { Window } from './windowing/window.ts';
import type { WindowAssigner } from './windowing/window-assigner.ts';
import { AllWindowedStream, WindowedStream } from './windowing/windowed-stream.ts';
import type { WindowDefinition } from './windowing/window-definition.ts';
import type { LocalAggregate, LocalPhase } from './windowing/local-aggregate.ts';
import type { TypeInfo } from '../serialization/type-info.ts';
import { BroadcastStream } from './broadcast-stream.ts';
import { callerLocation } from './caller-location.ts';
import { BroadcastConnectedStream, ConnectedStreams, KeyedBroadcastConnectedStream, KeyedConnectedStreams, type TwoInputStep } from './connected-streams.ts';
import { MapStateDescriptor } from './state-descriptors.ts';
import { StreamConnectionError } from './stream-connection-error.ts';
import { CoGroupedStreams, JoinedStreams } from './co-grouped-streams.ts';
import { IntervalJoin } from './interval-join.ts';

export class DataStream<T> {
  readonly environment: StreamExecutionEnvironment;
  /** @internal The transformation this stream is the output of, for the planner. */
  readonly transformation: Transformation;

  /** @internal Made by the environment and the operations; users do not construct it. */
  constructor(environment: StreamExecutionEnvironment, transformation: Transformation) {
    this.environment = environment;
    this.transformation = transformation;
  }

  map<O>(fn: MapFunction<T, O>, settings?: OperatorSettings): DataStream<O> {
    return this.then({ kind: 'map', fn: fn as MapFunction<unknown, unknown> }, settings);
  }

  flatMap<O>(fn: FlatMapFunction<T, O>, settings?: OperatorSettings): DataStream<O> {
    return this.then({ kind: 'flatMap', fn: fn as FlatMapFunction<unknown, unknown> }, settings);
  }

  /** Keeps the records for which `fn` is true; a type guard (`(e): e is Event => ...`) narrows the stream's type. */
  // One signature, not overloads: a union of streams (DataStream<A> | DataStream<B>) stays callable.
  filter<S extends T = T>(fn: ((value: T) => value is S) | FilterFunction<T>, settings?: OperatorSettings): DataStream<S> {
    return this.then({ kind: 'filter', fn: fn as FilterFunction<unknown> }, settings);
  }

  /**
   * Declares the type of this stream's records (Flink's returns()): where they cross threads or
   * hosts they are written by a codec compiled from it, and a record that does not fit fails the
   * job naming the operator, the edge, the field and what it was. E.g.
   * `.map(...).returns(Types.struct({ word: Types.string, count: Types.int }))`.
   */
  returns(type: TypeInfo): this {
    const t = this.transformation;
    if (t.spec.kind === 'partition' || t.spec.kind === 'union' || t.spec.kind === 'sink' || t.spec.kind === 'side-output') {
      throw new TypeError(`returns() declares what an operator emits: call it on the stream of a source or function, not after ${t.spec.kind === 'partition' ? 'keyBy/rebalance/broadcast/forward' : t.spec.kind}`);
    }
    checkTypeInfo(type);
    (t.settings as OperatorSettings).returns = type;
    return this;
  }

  /**
   * Gives the records new timestamps and makes watermarks from them with the strategy (Flink's
   * assignTimestampsAndWatermarks); watermarks from upstream are dropped here, except the final
   * one. Prefer giving the strategy to the source: there it runs per split.
   */
  assignTimestampsAndWatermarks(strategy: WatermarkStrategy<T>, settings?: OperatorSettings): DataStream<T> {
    if (!(strategy instanceof WatermarkStrategy)) throw new TypeError('assignTimestampsAndWatermarks needs a WatermarkStrategy');
    return this.then({ kind: 'timestamps-watermarks', strategy: strategy as WatermarkStrategy<unknown> }, { name: 'Timestamps/Watermarks', ...settings });
  }

  /**
   * A ProcessFunction (Flink's DataStream.process): per record, with its timestamp, the current
   * watermark and side outputs. Timers and keyed state need `keyBy(...).process(...)`.
   */
  process<O>(fn: ProcessFunction<T, O> | (() => ProcessFunction<T, O>), settings?: OperatorSettings): DataStream<O> {
    if (typeof fn !== 'function' && typeof fn?.processElement !== 'function') {
      throw new TypeError('process() needs an object with a processElement(value, ctx, out) method, or a function that makes one');
    }
    return this.then({ kind: 'process', fn: fn as unknown as ProcessFunction<unknown, unknown> }, settings);
  }

  /**
   * The records this operator emitted to a side output (`ctx.output(tag, value)` in a process
   * function, or a window's `sideOutputLateData(tag)`; after `sinkTo`, the sink's dead letters).
   * Flink's SingleOutputStreamOperator.getSideOutput.
   */
  getSideOutput<X>(tag: OutputTag<X>): DataStream<X> {
    if (!(tag instanceof OutputTag)) throw new TypeError('getSideOutput needs an OutputTag');
    const t = this.transformation;
    if (t.spec.kind === 'sink' && (!isTwoPhaseCommittingSink(t.spec.sink) || t.spec.sink.deadLetterOutput?.id !== tag.id)) {
      throw new TypeError(`getSideOutput(${tag.id}) after sinkTo takes the sink's dead letters: pass the same tag as the sink's deadLetterOutput`);
    }
    if (t.spec.kind === 'partition' || t.spec.kind === 'union' || t.spec.kind === 'side-output') {
      throw new TypeError(`getSideOutput(${tag.id}) takes the side output of an operator: call it on the stream a process function or window returned, not after ${t.spec.kind}`);
    }
    return new DataStream<X>(this.environment, this.environment.addTransformation({ kind: 'side-output', tag: tag as OutputTag<unknown> }, [t], {}));
  }

  /**
   * Windows over the whole stream, in one subtask (Flink's windowAll): the records of all keys
   * together. Prefer keyBy(...).window(...), which runs in parallel.
   */
  windowAll<W extends Window>(assigner: WindowAssigner<T, W>): AllWindowedStream<T, W> {
    const keyed = this.keyBy(() => 0);
    return new AllWindowedStream<T, W>(keyed.windowNonParallel(assigner));
  }

  /** Partitions by key: each key goes to the subtask that owns its key group. */
  keyBy<K extends Key>(keySelector: KeySelector<T, K>): KeyedStream<T, K> {
    const selector = keySelector as KeySelector<unknown>;
    const t = this.environment.addTransformation({ kind: 'partition', partitioner: { kind: 'hash', keySelector: selector } }, [this.transformation], {});
    return new KeyedStream<T, K>(this.environment, t, keySelector);
  }

  /** Round-robin over the downstream subtasks, to even out skew. */
  rebalance(): DataStream<T> {
    return this.then({ kind: 'partition', partitioner: { kind: 'rebalance' } });
  }

  /** Every record to every downstream subtask. */
  broadcast(): DataStream<T>;
  /**
   * A broadcast stream with broadcast state (Flink's broadcast state pattern): connect a stream to
   * it, and every subtask of the operator gets every record of this one and keeps the states the
   * descriptors name, the same in each.
   */
  broadcast(...descriptors: [MapStateDescriptor<any, any>, ...MapStateDescriptor<any, any>[]]): BroadcastStream<T>;
  broadcast(...descriptors: MapStateDescriptor<any, any>[]): DataStream<T> | BroadcastStream<T> {
    const partitioned = this.then<T>({ kind: 'partition', partitioner: { kind: 'broadcast' } });
    if (descriptors.length === 0) return partitioned;
    const definedAt = callerLocation();
    const names = new Set<string>();
    for (const d of descriptors) {
      if (!(d instanceof MapStateDescriptor)) {
        throw new StreamConnectionError('broadcast', `broadcast state is a map: broadcast(...) takes MapStateDescriptors, got ${describe(d)}`, definedAt);
      }
      if (names.has(d.name)) throw new StreamConnectionError('broadcast', `broadcast state '${d.name}' is declared twice`, definedAt);
      names.add(d.name);
    }
    return new BroadcastStream<T>(partitioned.transformation, descriptors, definedAt);
  }

  /**
   * Connects two streams for one operator with two inputs (Flink's connect): process with a
   * CoProcessFunction, or map / flatMap with a function per input. Connected with a broadcast
   * stream (`rules.broadcast(descriptor)`), process with a BroadcastProcessFunction.
   */
  connect<B>(other: BroadcastStream<B>): BroadcastConnectedStream<T, B>;
  connect<B>(other: DataStream<B>): ConnectedStreams<T, B>;
  connect<B>(other: DataStream<B> | BroadcastStream<B>): ConnectedStreams<T, B> | BroadcastConnectedStream<T, B> {
    if (other instanceof BroadcastStream) return new BroadcastConnectedStream<T, B>(this.twoInputStep(other.transformation), other.spec);
    return new ConnectedStreams<T, B>(this.twoInputStep(checkConnectable(other)));
  }

  /**
   * A window join with `other` (Flink's DataStream.join): `.where(k1).equalTo(k2).window(assigner).apply(fn)`
   * calls fn for each pair of records with one key in one window.
   */
  join<B>(other: DataStream<B>): JoinedStreams<T, B> {
    return new JoinedStreams<T, B>(this, checkJoinable(other, 'join'));
  }

  /** Flink's DataStream.coGroup: each window's records of one key from both streams, together. */
  coGroup<B>(other: DataStream<B>): CoGroupedStreams<T, B> {
    return new CoGroupedStreams<T, B>(this, checkJoinable(other, 'coGroup'));
  }

  /** @internal The step that records an operator over this stream (input 1) and `second` (input 2). */
  protected twoInputStep(second: Transformation): TwoInputStep {
    return <O>(spec: TransformationSpec, settings: OperatorSettings) =>
      new DataStream<O>(this.environment, this.environment.addTransformation(spec, [this.transformation, second], settings));
  }

  /** Subtask i to subtask i; the parallelism on both sides must be equal. */
  forward(): DataStream<T> {
    return this.then({ kind: 'partition', partitioner: { kind: 'forward' } });
  }

  union(...others: DataStream<T>[]): DataStream<T> {
    const inputs = [this.transformation, ...others.map((o) => o.transformation)];
    return new DataStream<T>(this.environment, this.environment.addTransformation({ kind: 'union' }, inputs, {}));
  }

  /** A sink: plain (at-least-once, or exactly-once by its own means) or two-phase committing (exactly-once). */
  sinkTo(sink: Sink<T, any> | TwoPhaseCommittingSink<T, any>, settings?: OperatorSettings): DataStream<never> {
    return this.then({ kind: 'sink', sink: sink as Sink<unknown, unknown> | TwoPhaseCommittingSink<unknown, unknown> }, settings);
  }

  // Fluent setters on the operator that produced this stream, as in Flink.
  name(name: string): this {
    this.transformation.settings.name = name;
    return this;
  }

  uid(uid: string): this {
    this.transformation.settings.uid = uid;
    return this;
  }

  setParallelism(parallelism: number): this {
    this.transformation.settings.parallelism = parallelism;
    return this;
  }

  setMaxParallelism(maxParallelism: number): this {
    this.transformation.settings.maxParallelism = maxParallelism;
    return this;
  }

  disableChaining(): this {
    this.transformation.settings.chaining = false;
    return this;
  }

  protected then<O>(spec: TransformationSpec, settings: OperatorSettings = {}): DataStream<O> {
    return new DataStream<O>(this.environment, this.environment.addTransformation(spec, [this.transformation], settings));
  }
}

// KeyedStream lives here because it extends DataStream and DataStream.keyBy creates it: two
// files would form an import cycle that breaks class initialization order.

export type NumericField<T> = { [K in keyof T]: T[K] extends number | bigint ? K : never }[keyof T] & string;

/** A stream partitioned by key, on which keyed state and rolling aggregations are available. */
export class KeyedStream<T, K extends Key> extends DataStream<T> {
  readonly keySelector: KeySelector<T, K>;

  /** @internal Made by DataStream.keyBy; users do not construct it. */
  constructor(environment: StreamExecutionEnvironment, transformation: Transformation, keySelector: KeySelector<T, K>) {
    super(environment, transformation);
    if (typeof keySelector !== 'function') throw new TypeError('keyBy needs a function that returns the key of a record');
    this.keySelector = keySelector;
  }

  /**
   * A KeyedProcessFunction with keyed state. Pass the function object, or a factory
   * (`() => new MyFunction()`) when each parallel instance needs an object of its own.
   */
  override process<O>(fn: KeyedProcessFunction<K, T, O> | (() => KeyedProcessFunction<K, T, O>), settings?: OperatorSettings): DataStream<O> {
    if (typeof fn !== 'function' && typeof fn?.processElement !== 'function') {
      throw new TypeError('process() needs an object with a processElement(value, ctx, out) method, or a function that makes one');
    }
    return this.then({ kind: 'keyed-process', fn: fn as unknown as KeyedProcessFunction<Key, unknown, unknown>, keySelector: this.selector() }, settings);
  }

  /**
   * Puts each key's records into windows (Flink's KeyedStream.window): tumbling, sliding or
   * session windows in event or processing time, or GlobalWindows with a trigger.
   */
  window<W extends Window>(assigner: WindowAssigner<T, W>): WindowedStream<T, K, W> {
    return new WindowedStream<T, K, W>(assigner, (window, settings, local) => this.#addWindow(window, { name: `Window(${window.describe()})`, ...settings }, local));
  }

  /** @internal windowAll's window operator: one subtask. */
  windowNonParallel<W extends Window>(assigner: WindowAssigner<T, W>): WindowedStream<T, K, W> {
    return new WindowedStream<T, K, W>(assigner, (window, settings, local) => this.#addWindow(window, { name: `WindowAll(${window.describe()})`, ...settings }, local), true);
  }

  /**
   * The window operator after this keyBy's exchange; with a first phase, that phase goes before
   * the exchange instead (chained to what this stream was keyed from, at its parallelism) and the
   * window is keyed by the key the first phase sends with each accumulator.
   */
  #addWindow(window: WindowDefinition, settings: OperatorSettings, local: LocalPhase | undefined): DataStream<unknown> {
    if (local === undefined) return this.then({ kind: 'window', window, keySelector: this.selector() }, settings);
    const upstream = this.transformation.inputs[0]!;
    const env = this.environment;
    const first = env.addTransformation({ kind: 'local-window-aggregate', ...local, keySelector: this.selector() }, [upstream], {
      name: `LocalWindowAggregate(${settings.name ?? 'window'})`,
      ...(upstream.settings.parallelism !== undefined ? { parallelism: upstream.settings.parallelism } : {}),
    });
    const byKey: KeySelector<unknown> = (partial) => (partial as LocalAggregate).key as Key;
    const exchange = env.addTransformation({ kind: 'partition', partitioner: { kind: 'hash', keySelector: byKey } }, [first], {});
    return new DataStream<unknown>(env, env.addTransformation({ kind: 'window', window, keySelector: byKey }, [exchange], settings));
  }

  /**
   * Connects with another keyed stream (both keys of one type: records with one key meet in one
   * subtask, with its keyed state and timers), with a broadcast stream (keyed side, broadcast
   * state), or with a stream that is not keyed.
   */
  override connect<B>(other: BroadcastStream<B>): KeyedBroadcastConnectedStream<T, B, K>;
  override connect<B>(other: KeyedStream<B, K>): KeyedConnectedStreams<T, B, K>;
  override connect<B>(other: DataStream<B>): ConnectedStreams<T, B>;
  override connect<B>(other: DataStream<B> | BroadcastStream<B>): ConnectedStreams<T, B> | BroadcastConnectedStream<T, B> {
    if (other instanceof BroadcastStream) return new KeyedBroadcastConnectedStream<T, B, K>(this.twoInputStep(other.transformation), other.spec, this.keySelector);
    if (other instanceof KeyedStream) return new KeyedConnectedStreams<T, B, K>(this.twoInputStep(other.transformation), [this.keySelector, other.keySelector as KeySelector<B, K>]);
    return super.connect(other);
  }

  /**
   * An interval join with another keyed stream (Flink's KeyedStream.intervalJoin): records of
   * one key whose event times are within bounds of each other, `.between(lower, upper).process(fn)`.
   */
  intervalJoin<B>(other: KeyedStream<B, K>): IntervalJoin<T, B, K> {
    if (!(other instanceof KeyedStream)) throw new StreamConnectionError('IntervalJoin', `intervalJoin(...) takes a keyed stream (keyBy(...)), got ${describe(other)}`, callerLocation());
    return new IntervalJoin<T, B, K>(this.twoInputStep(other.transformation), [this.keySelector, other.keySelector as KeySelector<B, K>]);
  }

  /** Rolling reduce: emits the new aggregate of the key after every record. */
  reduce(fn: ReduceFunction<T>, settings?: OperatorSettings): DataStream<T> {
    return this.then({ kind: 'reduce', fn: fn as ReduceFunction<unknown>, keySelector: this.selector() }, settings);
  }

  /** Rolling sum of a numeric field (or of the records themselves when they are numbers). */
  sum(field?: NumericField<T>, settings?: OperatorSettings): DataStream<T> {
    return this.reduce(fieldAggregator<T>(field, 'sum'), withName(settings, 'Sum'));
  }

  min(field?: NumericField<T>, settings?: OperatorSettings): DataStream<T> {
    return this.reduce(fieldAggregator<T>(field, 'min'), withName(settings, 'Min'));
  }

  max(field?: NumericField<T>, settings?: OperatorSettings): DataStream<T> {
    return this.reduce(fieldAggregator<T>(field, 'max'), withName(settings, 'Max'));
  }

  private selector(): KeySelector<unknown> {
    return this.keySelector as KeySelector<unknown>;
  }
}

function describe(value: unknown): string {
  return value === null || typeof value !== 'object' ? String(value) : `a ${value.constructor?.name ?? 'object'}`;
}

/** What connect() takes besides a broadcast stream: a DataStream (of this job: the environment checks that). */
function checkConnectable(other: unknown): Transformation {
  if (!(other instanceof DataStream)) throw new StreamConnectionError('connect', `connect(...) takes a DataStream or a BroadcastStream, got ${describe(other)}`, callerLocation());
  return other.transformation;
}

function checkJoinable<B>(other: DataStream<B>, call: string): DataStream<B> {
  if (!(other instanceof DataStream)) throw new StreamConnectionError(call, `${call}(...) takes a DataStream, got ${describe(other)}`, callerLocation());
  return other;
}

function withName(settings: OperatorSettings | undefined, name: string): OperatorSettings {
  return { name, ...settings };
}
