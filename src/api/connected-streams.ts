import type { BroadcastProcessFunction, KeyedBroadcastProcessFunction } from './broadcast-process-function.ts';
import { callerLocation } from './caller-location.ts';
import type { CoFlatMapFunction, CoMapFunction, CoProcessFunction, KeyedCoProcessFunction } from './co-process-function.ts';
import type { DataStream } from './data-stream.ts';
import type { Collector, KeySelector } from './functions.ts';
import { StreamConnectionError } from './stream-connection-error.ts';
import type { BroadcastSpec, OperatorSettings, OperatorSpec } from './transformation.ts';
import type { Key } from '../state/key-group.ts';

/** Records the two-input operator over both connected streams (DataStream does it: it owns the environment). */
export type TwoInputStep = <O>(spec: OperatorSpec, settings: OperatorSettings) => DataStream<O>;

/** A user function given to process: an object with the named methods, or a factory that makes one. */
function checkFunction(fn: unknown, operator: string, methods: readonly string[]): void {
  if (typeof fn === 'function') return;
  const missing = methods.filter((m) => typeof (fn as Record<string, unknown> | null)?.[m] !== 'function');
  if (missing.length > 0) throw new StreamConnectionError(operator, `process() needs an object with ${methods.join(' and ')} methods, or a function that makes one (missing: ${missing.join(', ')})`, callerLocation());
}

/**
 * Two streams connected for one operator with two inputs (Flink's ConnectedStreams): records of
 * each keep their own type, and the operator sees which input a record came from.
 */
export class ConnectedStreams<I1, I2> {
  protected readonly step: TwoInputStep;

  /** @internal Made by the API (DataStream.connect and the like); users do not construct it. */
  constructor(step: TwoInputStep) {
    this.step = step;
  }

  /** A CoProcessFunction: processElement1/2 per record of each input, with side outputs and the watermark. */
  process<O>(fn: CoProcessFunction<I1, I2, O> | (() => CoProcessFunction<I1, I2, O>), settings?: OperatorSettings): DataStream<O> {
    checkFunction(fn, settings?.name ?? 'CoProcess', ['processElement1', 'processElement2']);
    return this.step({ kind: 'co-process', fn: fn as unknown as CoProcessFunction<unknown, unknown, unknown> }, settings ?? {});
  }

  /** One output per record: map1 for the first input's records, map2 for the second's. */
  map<O>(fn: CoMapFunction<I1, I2, O>, settings?: OperatorSettings): DataStream<O> {
    checkFunction(fn, settings?.name ?? 'CoMap', ['map1', 'map2']);
    const process: CoProcessFunction<I1, I2, O> = {
      processElement1: (v, _ctx, out) => out.collect(fn.map1(v)),
      processElement2: (v, _ctx, out) => out.collect(fn.map2(v)),
    };
    return this.process(process, { name: 'CoMap', ...settings });
  }

  /** Any number of outputs per record, returned or collected. */
  flatMap<O>(fn: CoFlatMapFunction<I1, I2, O>, settings?: OperatorSettings): DataStream<O> {
    checkFunction(fn, settings?.name ?? 'CoFlatMap', ['flatMap1', 'flatMap2']);
    const emit = (result: Iterable<O> | void, out: Collector<O>): void => {
      if (result !== undefined) for (const v of result) out.collect(v);
    };
    const process: CoProcessFunction<I1, I2, O> = {
      processElement1: (v, _ctx, out) => emit(fn.flatMap1.call(fn, v, out), out),
      processElement2: (v, _ctx, out) => emit(fn.flatMap2.call(fn, v, out), out),
    };
    return this.process(process, { name: 'CoFlatMap', ...settings });
  }
}

/** Two keyed streams connected (`a.keyBy(k1).connect(b.keyBy(k2))`): records with one key meet in one subtask, with its state and timers. */
export class KeyedConnectedStreams<I1, I2, K extends Key> extends ConnectedStreams<I1, I2> {
  readonly #keySelectors: readonly [KeySelector<unknown>, KeySelector<unknown>];

  /** @internal Made by the API (DataStream.connect and the like); users do not construct it. */
  constructor(step: TwoInputStep, keySelectors: readonly [KeySelector<I1, K>, KeySelector<I2, K>]) {
    super(step);
    this.#keySelectors = keySelectors as unknown as readonly [KeySelector<unknown>, KeySelector<unknown>];
  }

  /** A KeyedCoProcessFunction: keyed state and timers of the record's key, whichever input it came by. */
  override process<O>(fn: KeyedCoProcessFunction<K, I1, I2, O> | (() => KeyedCoProcessFunction<K, I1, I2, O>), settings?: OperatorSettings): DataStream<O> {
    checkFunction(fn, settings?.name ?? 'KeyedCoProcess', ['processElement1', 'processElement2']);
    return this.step(
      { kind: 'keyed-co-process', fn: fn as unknown as KeyedCoProcessFunction<Key, unknown, unknown, unknown>, keySelectors: this.#keySelectors, definedAt: callerLocation() },
      settings ?? {},
    );
  }
}

/** A stream connected with a broadcast stream (Flink's BroadcastConnectedStream). */
export class BroadcastConnectedStream<I, B> {
  protected readonly step: TwoInputStep;
  protected readonly broadcast: BroadcastSpec;

  /** @internal Made by the API (DataStream.connect and the like); users do not construct it. */
  constructor(step: TwoInputStep, broadcast: BroadcastSpec) {
    this.step = step;
    this.broadcast = broadcast;
  }

  process<O>(fn: BroadcastProcessFunction<I, B, O> | (() => BroadcastProcessFunction<I, B, O>), settings?: OperatorSettings): DataStream<O> {
    checkFunction(fn, settings?.name ?? 'BroadcastProcess', ['processElement', 'processBroadcastElement']);
    return this.step({ kind: 'broadcast-process', fn: fn as unknown as BroadcastProcessFunction<unknown, unknown, unknown>, broadcast: this.broadcast }, settings ?? {});
  }
}

/** A keyed stream connected with a broadcast stream: keyed state and timers on the keyed side, broadcast state everywhere. */
export class KeyedBroadcastConnectedStream<I, B, K extends Key> extends BroadcastConnectedStream<I, B> {
  readonly #keySelector: KeySelector<unknown>;

  /** @internal Made by the API (DataStream.connect and the like); users do not construct it. */
  constructor(step: TwoInputStep, broadcast: BroadcastSpec, keySelector: KeySelector<I, K>) {
    super(step, broadcast);
    this.#keySelector = keySelector as KeySelector<unknown>;
  }

  override process<O>(fn: KeyedBroadcastProcessFunction<K, I, B, O> | (() => KeyedBroadcastProcessFunction<K, I, B, O>), settings?: OperatorSettings): DataStream<O> {
    checkFunction(fn, settings?.name ?? 'KeyedBroadcastProcess', ['processElement', 'processBroadcastElement']);
    return this.step(
      { kind: 'keyed-broadcast-process', fn: fn as unknown as KeyedBroadcastProcessFunction<Key, unknown, unknown, unknown>, keySelector: this.#keySelector, broadcast: this.broadcast },
      settings ?? {},
    );
  }
}
