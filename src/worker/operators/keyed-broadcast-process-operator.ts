import type {
  KeyedBroadcastContext,
  KeyedBroadcastOnTimerContext,
  KeyedBroadcastProcessFunction,
  KeyedReadOnlyBroadcastContext,
} from '../../api/broadcast-process-function.ts';
import type { Collector, KeyedContext, KeyedProcessFunction, KeySelector, OnTimerContext, RuntimeContext } from '../../api/functions.ts';
import type { OutputTag } from '../../api/output-tag.ts';
import type { StateDescriptor } from '../../api/state-descriptors.ts';
import type { BroadcastSpec } from '../../api/transformation.ts';
import { NO_TIMESTAMP } from '../../network/record-timestamp.ts';
import type { Key } from '../../state/key-group.ts';
import type { KeyedStateBackend } from '../../state/keyed-state-backend.ts';
import { BroadcastStateStore } from './broadcast-state-store.ts';
import { KeyedProcessOperator } from './keyed-process-operator.ts';
import type { OperatorContext, TwoInputStreamOperator } from './stream-operator.ts';
import { perInstance } from './tagged-record.ts';

interface Shared {
  fn: KeyedBroadcastProcessFunction<Key, unknown, unknown, unknown>;
  store?: BroadcastStateStore;
}

/**
 * Runs a KeyedBroadcastProcessFunction (Flink's CoBroadcastWithKeyedOperator): the keyed
 * stream's records go through a KeyedProcessOperator (their key current: keyed state, timers,
 * read-only broadcast state); the broadcast stream's records have no key: they write the
 * broadcast state and may visit every key's state with applyToKeyedState.
 */
export class KeyedBroadcastProcessOperator extends KeyedProcessOperator implements TwoInputStreamOperator {
  readonly inputCount = 2;
  readonly #shared: Shared;
  readonly #spec: BroadcastSpec;
  #ctx!: OperatorContext;
  #broadcastContext!: KeyedBroadcastContext;

  constructor(
    fn: KeyedBroadcastProcessFunction<Key, unknown, unknown, unknown> | (() => KeyedBroadcastProcessFunction<Key, unknown, unknown, unknown>),
    keySelector: KeySelector<unknown>,
    spec: BroadcastSpec,
    shared: Shared = { fn: perInstance(fn) },
  ) {
    super(() => keyedSideAdapter(shared), keySelector);
    this.#shared = shared;
    this.#spec = spec;
  }

  override open(ctx: OperatorContext): Promise<void> {
    this.#ctx = ctx;
    const store = new BroadcastStateStore(this.#spec, ctx.operatorState, { name: ctx.operatorName, uid: ctx.operatorUid });
    this.#shared.store = store;
    this.#broadcastContext = this.#makeBroadcastContext(ctx, ctx.keyedState!, store);
    return super.open(ctx);
  }

  processElement1(value: unknown): void {
    this.processElement(value);
  }

  /** A broadcast record: no key is current, so keyed state is reached only through applyToKeyedState. */
  processElement2(value: unknown): void {
    this.#shared.fn.processBroadcastElement(value, this.#broadcastContext, this.output as Collector<unknown>);
  }

  #makeBroadcastContext(ctx: OperatorContext, backend: KeyedStateBackend, store: BroadcastStateStore): KeyedBroadcastContext {
    const time = ctx.timestamps;
    const noTimers = (): never => {
      throw store.error('(timers)', 'processBroadcastElement has no current key, so it cannot register or delete timers; do that in processElement or onTimer');
    };
    const applyToKeyedState = (descriptor: StateDescriptor, fn: (key: Key, state: never) => void): void => {
      if (store.isBroadcast(descriptor.name)) throw store.error(descriptor.name, 'applyToKeyedState visits keyed state; this descriptor names broadcast state');
      for (const key of backend.keysOf(descriptor.name)) {
        backend.setCurrentKey(key);
        fn(key, stateOf(backend, descriptor) as never);
      }
    };
    return {
      timestamp: () => (time.current === NO_TIMESTAMP ? undefined : time.current),
      timerService: () => ({
        currentProcessingTime: () => ctx.processingTime.now(),
        currentWatermark: () => this.#ctx.metrics.currentOutputWatermark,
        registerEventTimeTimer: noTimers,
        registerProcessingTimeTimer: noTimers,
        deleteEventTimeTimer: noTimers,
        deleteProcessingTimeTimer: noTimers,
      }),
      output: <X>(tag: OutputTag<X>, value: X) => ctx.sideOutput(tag.id)?.collect(value),
      getBroadcastState: (d) => store.writable(d),
      applyToKeyedState: applyToKeyedState as KeyedBroadcastContext['applyToKeyedState'],
    };
  }
}

function stateOf(backend: KeyedStateBackend, d: StateDescriptor): unknown {
  switch (d.kind) {
    case 'value':
      return backend.getValueState(d);
    case 'list':
      return backend.getListState(d);
    case 'map':
      return backend.getMapState(d);
    case 'reducing':
      return backend.getReducingState(d);
    case 'aggregating':
      return backend.getAggregatingState(d);
  }
}

/** The keyed side: the user's processElement and onTimer with read-only broadcast state; keyed state refuses broadcast descriptors. */
function keyedSideAdapter(shared: Shared): KeyedProcessFunction<Key, unknown, unknown> {
  const fn = shared.fn;
  let readOnly: KeyedReadOnlyBroadcastContext<Key> | undefined;
  let onTimer: KeyedBroadcastOnTimerContext<Key> | undefined;
  const getBroadcastState = (d: never) => shared.store!.readOnly(d);
  return {
    open: (ctx) => fn.open?.(guardKeyedState(ctx, shared)),
    processElement: (value, ctx: KeyedContext<Key>, out) => {
      readOnly ??= Object.assign(Object.create(ctx) as KeyedContext<Key>, { getBroadcastState }) as KeyedReadOnlyBroadcastContext<Key>;
      fn.processElement(value, readOnly, out);
    },
    onTimer: (t, ctx: OnTimerContext<Key>, out) => {
      onTimer ??= Object.assign(Object.create(ctx) as OnTimerContext<Key>, { getBroadcastState }) as KeyedBroadcastOnTimerContext<Key>;
      fn.onTimer?.(t, onTimer, out);
    },
    endInput: (out) => fn.endInput?.(out),
    close: () => fn.close?.(),
  };
}

/** A broadcast state descriptor asked for as keyed state is the wrong side's: refused, naming both. */
function guardKeyedState(ctx: RuntimeContext, shared: Shared): RuntimeContext {
  const check = <D extends StateDescriptor>(d: D): D => {
    if (shared.store?.isBroadcast(d.name)) throw shared.store.error(d.name, 'it is broadcast state, not keyed state: read it with ctx.getBroadcastState(descriptor), and write it in processBroadcastElement');
    return d;
  };
  return {
    ...ctx,
    getState: (d) => ctx.getState(check(d)),
    getListState: (d) => ctx.getListState(check(d)),
    getMapState: (d) => ctx.getMapState(check(d)),
    getReducingState: (d) => ctx.getReducingState(check(d)),
    getAggregatingState: (d) => ctx.getAggregatingState(check(d)),
  };
}
