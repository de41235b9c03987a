// Type-level assertions, checked by `tsc --strict` (test/api/type-flow.test.ts, and the project's
// own typecheck): each `expectType<Equal<A, B>>(true)` fails to compile when A and B differ, each
// `@ts-expect-error` fails when the line below it compiles. Nothing here runs.
import {
  AsyncDataStream,
  AsyncRetryStrategies,
  TumblingEventTimeWindows,
  type AsyncFunction,
  type AsyncRetryStrategy,
  type AsyncWaitOptions,
  type Collector,
  type ProcessJoinFunction,
  type DataStream,
  type KeyedStream,
  type TimeWindow,
  type UseApplyForAPlainFunction,
  type WindowFunction,
  type WindowedStream,
} from '../../../src/index.ts';

type Equal<A, B> = (<X>() => X extends A ? 1 : 2) extends <X>() => X extends B ? 1 : 2 ? true : false;
declare function expectType<T extends true>(ok: T): void;

interface Event {
  user: string;
  at: number;
}
declare const maybe: DataStream<Event | null>;

// A type-guard filter narrows the stream; a plain predicate keeps its type.
const events = maybe.filter((e): e is Event => e !== null);
expectType<Equal<typeof events, DataStream<Event>>>(true);
const stillMaybe = maybe.filter((e) => e !== null && e.at > 0);
expectType<Equal<typeof stillMaybe, DataStream<Event | null>>>(true);
// TypeScript 5.5+ infers `e is Event` from this body by itself: the stream narrows without an annotation.
const inferred = maybe.filter((e) => e !== null);
expectType<Equal<typeof inferred, DataStream<Event>>>(true);

// apply takes a plain function (key, window, elements, out); what it returns gives the result type.
const windowed = events.keyBy((e) => e.user).window(TumblingEventTimeWindows.of('1 min'));
const check: WindowedStream<Event, string, TimeWindow> = windowed;
void check;
const perWindow = windowed.apply((user, window, elements) => [{ user, end: window.end, n: elements.length }]);
expectType<Equal<typeof perWindow, DataStream<{ user: string; end: number; n: number }>>>(true);
// Emitting through the collector works too; the collector's type is then the result's.
const viaCollector = windowed.apply<string>((user, _w, elements, out) => out.collect(`${user} ${elements.length}`));
expectType<Equal<typeof viaCollector, DataStream<string>>>(true);
const fn: WindowFunction<Event, number, string, TimeWindow> = (_k, _w, elements) => [elements.length];
const counted = windowed.apply(fn);
expectType<Equal<typeof counted, DataStream<number>>>(true);

// process takes an object or a factory; a plain function gets an error that names apply().
const processed = windowed.process({ process: (_user, _ctx, elements, out: { collect(v: number): void }) => out.collect(elements.length) });
expectType<Equal<typeof processed, DataStream<number>>>(true);
// @ts-expect-error a plain function belongs to apply()
windowed.process((user: string, _ctx, _elements, out) => out.collect(user));
declare const hint: UseApplyForAPlainFunction;
expectType<Equal<typeof hint extends `${string}call apply()` ? true : false, true>>(true);

// Async I/O: the result type comes from the function, whatever the options say.
const enriched = AsyncDataStream.orderedWait(events, async (e: Event, signal: AbortSignal) => (signal.aborted ? [] : [{ ...e, score: 1 }]), {
  timeout: '5 s',
  capacity: 10,
  retry: AsyncRetryStrategies.fixedDelay({ maxAttempts: 3, delay: 100 }),
  onTimeout: (e) => [{ ...e, score: 0 }],
});
expectType<Equal<typeof enriched, DataStream<{ score: number; user: string; at: number }>>>(true);
const unordered = AsyncDataStream.unorderedWait(events, async (e) => [e.user], { timeout: 1000 });
expectType<Equal<typeof unordered, DataStream<string>>>(true);
// @ts-expect-error the timeout is required
AsyncDataStream.orderedWait(events, async (e) => [e], { capacity: 5 });
// @ts-expect-error onTimeout gives results of the function's type
AsyncDataStream.orderedWait(events, async (e) => [e.at], { timeout: 1, onTimeout: () => ['not a number'] });
const strategy: AsyncRetryStrategy<string> = AsyncRetryStrategies.exponentialBackoff<string>({ maxAttempts: 4, initialDelay: 10, maxDelay: '1 s', ifResult: (r) => r.length === 0 });
const options: AsyncWaitOptions<Event, string> = { timeout: 1, retry: strategy };
const asyncFn: AsyncFunction<Event, string> = async (e) => [e.user];
expectType<Equal<ReturnType<typeof AsyncDataStream.orderedWait<Event, string>>, DataStream<string>>>(true);
void AsyncDataStream.orderedWait(events, asyncFn, options);

declare const keyed: KeyedStream<Event, string>;
const narrowedKeyed = keyed.filter((e): e is Event & { at: 1 } => e.at === 1);
expectType<Equal<typeof narrowedKeyed, DataStream<Event & { at: 1 }>>>(true);

// Joins: the result type comes from the join function; the key types of both sides must agree.
interface Click {
  user: string;
  page: string;
}
declare const clicks: DataStream<Click>;
const windowJoined = events
  .join(clicks)
  .where((e) => e.user)
  .equalTo((c) => c.user)
  .window(TumblingEventTimeWindows.of('1 min'))
  .apply((e, c) => ({ user: e.user, page: c.page, at: e.at }));
expectType<Equal<typeof windowJoined, DataStream<{ user: string; page: string; at: number }>>>(true);
const coGrouped = events
  .coGroup(clicks)
  .where((e) => e.user)
  .equalTo((c) => c.user)
  .window(TumblingEventTimeWindows.of('1 min'))
  .apply((es, cs) => [es.length + cs.length]);
expectType<Equal<typeof coGrouped, DataStream<number>>>(true);
// @ts-expect-error the second key must be of the first key's type
events.join(clicks).where((e) => e.user).equalTo((c) => c.page.length);
const intervalJoined = keyed
  .intervalJoin(clicks.keyBy((c) => c.user))
  .between('-5 s', '5 s')
  .process({ processElement: (e, c, ctx, out: Collector<string>) => out.collect(`${e.user} ${c.page} ${ctx.timestamp()}`) });
expectType<Equal<typeof intervalJoined, DataStream<string>>>(true);
// @ts-expect-error an interval join needs the other side keyed by the same key type
keyed.intervalJoin(clicks.keyBy((c) => c.page.length));
const joinFn: ProcessJoinFunction<Event, Click, number> = { processElement: (e, _c, _ctx, out) => out.collect(e.at) };
void joinFn;
