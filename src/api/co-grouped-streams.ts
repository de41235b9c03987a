import type { Key } from '../state/key-group.ts';
import { callerLocation } from './caller-location.ts';
import type { DataStream } from './data-stream.ts';
import { durationArg, type DurationArg } from './duration-arg.ts';
import type { Collector, KeySelector } from './functions.ts';
import { StreamConnectionError } from './stream-connection-error.ts';
import type { OperatorSettings } from './transformation.ts';
import type { Trigger } from './windowing/trigger.ts';
import type { Window } from './windowing/window.ts';
import type { WindowAssigner } from './windowing/window-assigner.ts';

/** Flink's JoinFunction and FlatJoinFunction in one: return the joined record, or emit any number through `out` (and return nothing). */
export type JoinFunction<T1, T2, O> = (first: T1, second: T2, out: Collector<O>) => O | void;
/** Flink's CoGroupFunction: a key's records of one window from each input (either may be empty); results returned or emitted. */
export type CoGroupFunction<T1, T2, O> = (first: readonly T1[], second: readonly T2[], out: Collector<O>) => Iterable<O> | void;

/** A record of either input on its way to the window operator (Flink's TaggedUnion). */
interface Tagged {
  readonly i: 0 | 1;
  readonly v: unknown;
}

/**
 * `a.coGroup(b)` (Flink's CoGroupedStreams): the records of both inputs with one key in one
 * window, given together to a function. Built as Flink builds it: each input's records tagged
 * with their side, the two unioned, keyed by the side's key selector and windowed; so the
 * window's state (both sides' records) is the window operator's keyed state, checkpointed as any
 * window's, and cleaned up when the watermark passes the window's end plus its allowed lateness.
 */
export class CoGroupedStreams<T1, T2> {
  readonly #first: DataStream<T1>;
  readonly #second: DataStream<T2>;
  readonly #what: string;

  constructor(first: DataStream<T1>, second: DataStream<T2>, what = 'coGroup') {
    this.#first = first;
    this.#second = second;
    this.#what = what;
  }

  /** The first input's key. */
  where<K extends Key>(keySelector: KeySelector<T1, K>): { equalTo(keySelector: KeySelector<T2, K>): CoGroupedWindowable<T1, T2, K> } {
    checkSelector(keySelector, this.#what, 'where');
    return {
      equalTo: (second) => {
        checkSelector(second, this.#what, 'equalTo');
        return new CoGroupedWindowable(this.#first, this.#second, keySelector, second);
      },
    };
  }
}

/** `a.join(b)` (Flink's JoinedStreams): each pair of records with one key in one window, nested loop per window. */
export class JoinedStreams<T1, T2> {
  readonly #first: DataStream<T1>;
  readonly #second: DataStream<T2>;

  constructor(first: DataStream<T1>, second: DataStream<T2>) {
    this.#first = first;
    this.#second = second;
  }

  where<K extends Key>(keySelector: KeySelector<T1, K>): { equalTo(keySelector: KeySelector<T2, K>): JoinWindowable<T1, T2, K> } {
    const grouped = new CoGroupedStreams(this.#first, this.#second, 'join').where(keySelector);
    return { equalTo: (second) => new JoinWindowable(grouped.equalTo(second)) };
  }
}

export class CoGroupedWindowable<T1, T2, K extends Key> {
  readonly #first: DataStream<T1>;
  readonly #second: DataStream<T2>;
  readonly #keys: readonly [KeySelector<T1, K>, KeySelector<T2, K>];

  constructor(first: DataStream<T1>, second: DataStream<T2>, key1: KeySelector<T1, K>, key2: KeySelector<T2, K>) {
    this.#first = first;
    this.#second = second;
    this.#keys = [key1, key2];
  }

  window<W extends Window>(assigner: WindowAssigner<unknown, W>): CoGroupedWindow<T1, T2, K, W> {
    return new CoGroupedWindow(this.#first, this.#second, this.#keys, assigner);
  }
}

export class JoinWindowable<T1, T2, K extends Key> {
  readonly #inner: CoGroupedWindowable<T1, T2, K>;

  constructor(inner: CoGroupedWindowable<T1, T2, K>) {
    this.#inner = inner;
  }

  window<W extends Window>(assigner: WindowAssigner<unknown, W>): JoinedWindow<T1, T2, K, W> {
    return new JoinedWindow(this.#inner.window(assigner));
  }
}

export class CoGroupedWindow<T1, T2, K extends Key, W extends Window> {
  readonly #first: DataStream<T1>;
  readonly #second: DataStream<T2>;
  readonly #keys: readonly [KeySelector<T1, K>, KeySelector<T2, K>];
  readonly #assigner: WindowAssigner<unknown, W>;
  #trigger: Trigger<unknown, W> | undefined;
  #lateness: number | undefined;

  constructor(first: DataStream<T1>, second: DataStream<T2>, keys: readonly [KeySelector<T1, K>, KeySelector<T2, K>], assigner: WindowAssigner<unknown, W>) {
    this.#first = first;
    this.#second = second;
    this.#keys = keys;
    this.#assigner = assigner;
  }

  trigger(trigger: Trigger<unknown, W>): this {
    this.#trigger = trigger;
    return this;
  }

  allowedLateness(lateness: DurationArg): this {
    this.#lateness = durationArg(lateness, 'allowedLateness', 'lateness');
    return this;
  }

  /** Each window's records of one key, both sides, to `fn`. Results carry the window's end - 1 as their timestamp. */
  apply<O>(fn: CoGroupFunction<T1, T2, O>, settings?: OperatorSettings): DataStream<O> {
    if (typeof fn !== 'function') throw new TypeError('coGroup(...).apply() needs a function (first, second, out) => results');
    const [key1, key2] = this.#keys;
    const tagged1 = this.#first.map((v): Tagged => ({ i: 0, v }), { name: 'CoGroup: input 1' });
    const tagged2 = this.#second.map((v): Tagged => ({ i: 1, v }), { name: 'CoGroup: input 2' });
    let windowed = tagged1
      .union(tagged2)
      .keyBy((t) => (t.i === 0 ? key1(t.v as T1) : key2(t.v as T2)) as Key)
      .window(this.#assigner as unknown as WindowAssigner<Tagged, W>);
    if (this.#trigger !== undefined) windowed = windowed.trigger(this.#trigger as unknown as Trigger<Tagged, W>);
    if (this.#lateness !== undefined) windowed = windowed.allowedLateness(this.#lateness);
    return windowed.apply<O>(
      (_key, _window, elements, out) => {
        const first: T1[] = [];
        const second: T2[] = [];
        for (const e of elements) {
          if (e.i === 0) first.push(e.v as T1);
          else second.push(e.v as T2);
        }
        return fn(first, second, out);
      },
      { name: 'CoGroup', ...settings },
    );
  }
}

export class JoinedWindow<T1, T2, K extends Key, W extends Window> {
  readonly #inner: CoGroupedWindow<T1, T2, K, W>;

  constructor(inner: CoGroupedWindow<T1, T2, K, W>) {
    this.#inner = inner;
  }

  trigger(trigger: Trigger<unknown, W>): this {
    this.#inner.trigger(trigger);
    return this;
  }

  allowedLateness(lateness: DurationArg): this {
    this.#inner.allowedLateness(lateness);
    return this;
  }

  /** Every pair (first, second) of one key in one window, first-input order then second-input order (Flink's nested loop). */
  apply<O>(fn: JoinFunction<T1, T2, O>, settings?: OperatorSettings): DataStream<O> {
    if (typeof fn !== 'function') throw new TypeError('join(...).apply() needs a function (first, second, out?) => joined record');
    return this.#inner.apply<O>(
      (first, second, out) => {
        for (const a of first) {
          for (const b of second) {
            const joined = fn(a, b, out);
            if (joined !== undefined) out.collect(joined);
          }
        }
      },
      { name: 'Join', ...settings },
    );
  }
}

function checkSelector(fn: unknown, what: string, call: string): void {
  if (typeof fn !== 'function') throw new StreamConnectionError(what, `${call}(...) needs a function that returns the key of a record, got ${typeof fn}`, callerLocation());
}
