// Nexmark's queries (nexmark/nexmark's SQL) as DataStream jobs over weir's Nexmark source. Each
// query turns the events into lines of tab-separated fields. The retracting queries (q18, q19)
// emit a changelog: `+<TAB>row` when a row enters the result, `-<TAB>row` when it leaves. The
// joins (q3, q4, q8, q9, q20) are in join-queries.ts; q4 and q9 are retracting too.
//
// Per-day GROUP BYs (q15, q16, q17) are day-long tumbling event-time windows: one final row per
// group when the day's window closes (at the end of a bounded run), where Flink's SQL updates the
// row on every bid. Times of day are UTC.
import {
  EventTimeSessionWindows,
  SlidingEventTimeWindows,
  TumblingEventTimeWindows,
  TumblingProcessingTimeWindows,
  Types,
  ValueStateDescriptor,
  type Collector,
  type DataStream,
  type KeyedContext,
  type KeyedProcessFunction,
  type OnTimerContext,
  type ProcessContext,
  type ProcessFunction,
  type RuntimeContext,
  type TimeWindow,
  type ValueState,
  type WindowContext,
} from 'weir-stream';
import type { Bid, NexmarkEvent } from 'weir-stream/connectors/nexmark';
import { JOIN_QUERIES } from './join-queries.ts';

/** Settings of a query beyond Nexmark's fixed ones. */
export interface QuerySettings {
  /** q12's processing-time window, ms (default 10 s, as Nexmark's). */
  readonly q12WindowMs?: number;
}

export type Query = (events: DataStream<NexmarkEvent>, settings?: QuerySettings) => DataStream<string>;

const DAY = 86_400_000;

/**
 * Bids as the Nexmark tables declare them: where they cross threads they go through the codec
 * compiled for this struct, not the inferring codec (a tag byte and a shape check per record).
 */
const BID = Types.struct({ auction: Types.int, bidder: Types.int, price: Types.int, channel: Types.string, url: Types.string, dateTime: Types.int, extra: Types.string });

const bids = (events: DataStream<NexmarkEvent>): DataStream<Bid> => events.flatMap((e: NexmarkEvent) => (e.bid === null ? [] : [e.bid]), { name: 'Bids' }).returns(BID);

/**
 * The bids' columns a query reads, taken before the first exchange (as Flink's planner pushes
 * projections down): a record that crosses threads carries no url or extra it does not need.
 */
const bidColumn = (events: DataStream<NexmarkEvent>, column: 'auction' | 'bidder'): DataStream<number> =>
  events.flatMap((e: NexmarkEvent) => (e.bid === null ? [] : [e.bid[column]]), { name: `Bids: ${column}` }).returns(Types.int);

/** The columns of the per-day statistics (q15, q16, q17). */
export interface BidSummary {
  readonly auction: number;
  readonly bidder: number;
  readonly price: number;
  readonly channel: string;
  readonly dateTime: number;
}
const bidSummaries = (events: DataStream<NexmarkEvent>): DataStream<BidSummary> =>
  events.flatMap((e: NexmarkEvent) => {
    const b = e.bid;
    return b === null ? [] : [{ auction: b.auction, bidder: b.bidder, price: b.price, channel: b.channel, dateTime: b.dateTime }];
  }, { name: 'Bids: summaries' });

/** 0.908 * price with three decimals, exactly (prices are whole cents). */
export const dollarsToEuros = (price: number): string => {
  const milli = price * 908;
  return `${Math.floor(milli / 1000)}.${String(milli % 1000).padStart(3, '0')}`;
};

export const dayOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** Q14's bidTimeType by the hour of the day (UTC). */
export const bidTimeType = (ms: number): string => {
  const hour = new Date(ms).getUTCHours();
  return hour >= 8 && hour <= 18 ? 'dayTime' : hour <= 6 || hour >= 20 ? 'nightTime' : 'otherTime';
};

export const countChar = (s: string, c: string): number => {
  let n = 0;
  for (let i = s.indexOf(c); i >= 0; i = s.indexOf(c, i + 1)) n++;
  return n;
};

const CHANNEL_ID = /(&|^)channel_id=([^&]*)/;
const HOT_CHANNEL_IDS: Readonly<Record<string, string>> = { apple: '0', google: '1', facebook: '2', baidu: '3' };

/** Q21's channel_id: the hot channels' numbers, else the url's channel_id parameter (null: none). */
export const channelId = (b: Bid): string | null => HOT_CHANNEL_IDS[b.channel.toLowerCase()] ?? CHANNEL_ID.exec(b.url)?.[2] ?? null;

/** A bid as a line (the retracting queries' rows). */
export const bidRow = (b: Bid): string => `${b.auction}\t${b.bidder}\t${b.price}\t${b.channel}\t${b.url}\t${b.dateTime}\t${b.extra}`;

/**
 * A total order of bids, so "the last" and "the top 10" do not depend on arrival order between
 * lanes: by time (q18) or price (q19), then by every other field.
 */
export function compareBids(a: Bid, b: Bid, first: 'dateTime' | 'price'): number {
  const second = first === 'price' ? 'dateTime' : 'price';
  return a[first] - b[first] || a[second] - b[second] || a.bidder - b.bidder || a.auction - b.auction || cmp(a.channel, b.channel) || cmp(a.url, b.url) || cmp(a.extra, b.extra);
}
const cmp = (x: string, y: string): number => (x < y ? -1 : x > y ? 1 : 0);

interface Count {
  n: number;
}
const countBids = { createAccumulator: (): Count => ({ n: 0 }), add: (_: unknown, acc: Count) => (acc.n++, acc), getResult: (acc: Count) => acc.n, merge: (a: Count, b: Count) => ((a.n += b.n), a) };

/** The items of a group that share its highest score (ties kept, in no particular order). */
interface Highest<T> {
  max: number;
  items: T[];
}
/** An AggregateFunction of the items at the highest score, with merge (for two phases). */
function highest<IN, T>(score: (r: IN) => number, item: (r: IN) => T) {
  return {
    createAccumulator: (): Highest<T> => ({ max: -Infinity, items: [] }),
    add: (r: IN, acc: Highest<T>): Highest<T> => {
      const s = score(r);
      if (s > acc.max) return { max: s, items: [item(r)] };
      if (s === acc.max) acc.items.push(item(r));
      return acc;
    },
    getResult: (acc: Highest<T>) => acc,
    // Into a, never keeping b: in two phases b is what the first phase sent, a record.
    merge: (a: Highest<T>, b: Highest<T>): Highest<T> => {
      if (b.max > a.max) {
        a.max = b.max;
        a.items = [...b.items];
      } else if (b.max === a.max) a.items.push(...b.items);
      return a;
    },
  };
}
/** Q5's second step: per window, the auctions whose count is the window's highest. */
const hottest = highest((r: { auction: number; num: number }) => r.num, (r) => r.auction);
/** Q7: the bids at the highest price of a window (merged from what each upstream subtask saw). */
const highestBids = highest((b: Bid) => b.price, (b) => b);
/** Q18: the last bid of each (bidder, auction), as a changelog. */
class LastBid implements KeyedProcessFunction<string, Bid, string> {
  #last!: ValueState<Bid>;
  open(ctx: RuntimeContext): void {
    this.#last = ctx.getState(new ValueStateDescriptor<Bid>('last'));
  }
  processElement(b: Bid, _ctx: KeyedContext<string>, out: Collector<string>): void {
    const last = this.#last.value();
    if (last !== undefined && compareBids(b, last, 'dateTime') <= 0) return;
    if (last !== undefined) out.collect(`-\t${bidRow(last)}`);
    this.#last.update(b);
    out.collect(`+\t${bidRow(b)}`);
  }
}

/** Q19's N. */
const TOP = 10;

/** Where `b` goes among `top` (ordered best first): its index, or -1 when a full `top` has TOP better ones. */
function topIndex(top: readonly Bid[], b: Bid): number {
  if (top.length === TOP && compareBids(b, top[TOP - 1]!, 'price') <= 0) return -1;
  let i = top.length;
  while (i > 0 && compareBids(b, top[i - 1]!, 'price') > 0) i--;
  return i;
}

/**
 * Q19's rule for one auction: the top after `b` (a new array) and the changelog lines it makes,
 * or undefined when `b` does not enter the top.
 */
export function rankBid(top: readonly Bid[], b: Bid): { next: Bid[]; lines: string[] } | undefined {
  const i = topIndex(top, b);
  if (i < 0) return undefined;
  const next = [...top.slice(0, i), b, ...top.slice(i)];
  const lines = next.length > TOP ? [`-\t${bidRow(next.pop()!)}`] : [];
  lines.push(`+\t${bidRow(b)}`);
  return { next, lines };
}

/** Q19: the 10 highest bids of each auction, as a changelog. */
class TopBids implements KeyedProcessFunction<number, Bid, string> {
  #top!: ValueState<Bid[]>;
  open(ctx: RuntimeContext): void {
    this.#top = ctx.getState(new ValueStateDescriptor<Bid[]>('top'));
  }
  processElement(b: Bid, _ctx: KeyedContext<number>, out: Collector<string>): void {
    const ranked = rankBid(this.#top.value() ?? [], b);
    if (ranked === undefined) return;
    for (const line of ranked.lines) out.collect(line);
    this.#top.update(ranked.next);
  }
}

/** Auctions LocalTopBids remembers at most before it starts over. */
const LOCAL_TOP_AUCTIONS = 1024;

/**
 * Q19's step before the exchange, in each source subtask: drops a bid that cannot enter its
 * auction's top 10, so it is neither sent across threads nor looked up in keyed state. It keeps,
 * per auction, the 10 best bids it let through. A bid no better than the 10th of those would be
 * dropped by TopBids too: those 10 went ahead of it on the same channel to the same subtask, so
 * TopBids holds 10 bids at least as good when it arrives. The changelog is therefore the same
 * with or without this step. It is a cache, not state: it starts empty after a restore or a
 * rescale (and whenever it holds LOCAL_TOP_AUCTIONS auctions), and then lets more bids through,
 * never fewer.
 */
export class LocalTopBids implements ProcessFunction<Bid, Bid> {
  readonly #tops = new Map<number, Bid[]>();
  processElement(b: Bid, _ctx: ProcessContext, out: Collector<Bid>): void {
    let top = this.#tops.get(b.auction);
    if (top === undefined) {
      if (this.#tops.size >= LOCAL_TOP_AUCTIONS) this.#tops.clear();
      this.#tops.set(b.auction, (top = []));
    }
    const i = topIndex(top, b);
    if (i < 0) return;
    top.splice(i, 0, b);
    if (top.length > TOP) top.pop();
    out.collect(b);
  }
}

interface DayStats {
  total: number;
  ranks: [number, number, number];
  bidders: Set<number>;
  rankBidders: [Set<number>, Set<number>, Set<number>];
  auctions: Set<number>;
  rankAuctions: [Set<number>, Set<number>, Set<number>];
  maxTime: number;
}
export const priceRank = (price: number): 0 | 1 | 2 => (price < 10_000 ? 0 : price < 1_000_000 ? 1 : 2);
const dayStats = {
  createAccumulator: (): DayStats => ({ total: 0, ranks: [0, 0, 0], bidders: new Set(), rankBidders: [new Set(), new Set(), new Set()], auctions: new Set(), rankAuctions: [new Set(), new Set(), new Set()], maxTime: 0 }),
  add: (b: BidSummary, s: DayStats) => {
    const r = priceRank(b.price);
    s.total++;
    s.ranks[r]++;
    s.bidders.add(b.bidder);
    s.rankBidders[r].add(b.bidder);
    s.auctions.add(b.auction);
    s.rankAuctions[r].add(b.auction);
    s.maxTime = Math.max(s.maxTime, b.dateTime);
    return s;
  },
  getResult: (s: DayStats) => s,
  merge: (a: DayStats, b: DayStats) => {
    a.total += b.total;
    for (let r = 0; r < 3; r++) {
      a.ranks[r]! += b.ranks[r]!;
      for (const x of b.rankBidders[r]!) a.rankBidders[r]!.add(x);
      for (const x of b.rankAuctions[r]!) a.rankAuctions[r]!.add(x);
    }
    for (const x of b.bidders) a.bidders.add(x);
    for (const x of b.auctions) a.auctions.add(x);
    a.maxTime = Math.max(a.maxTime, b.maxTime);
    return a;
  },
};
export const dayStatsFields = (s: DayStats): string =>
  [s.total, ...s.ranks, s.bidders.size, ...s.rankBidders.map((x) => x.size), s.auctions.size, ...s.rankAuctions.map((x) => x.size)].join('\t');
export const minuteOf = (ms: number): string => new Date(ms).toISOString().slice(11, 16);

interface AuctionDay {
  total: number;
  ranks: [number, number, number];
  min: number;
  max: number;
  sum: number;
}
const auctionDay = {
  createAccumulator: (): AuctionDay => ({ total: 0, ranks: [0, 0, 0], min: Infinity, max: -Infinity, sum: 0 }),
  add: (b: BidSummary, s: AuctionDay) => {
    s.total++;
    s.ranks[priceRank(b.price)]++;
    s.min = Math.min(s.min, b.price);
    s.max = Math.max(s.max, b.price);
    s.sum += b.price;
    return s;
  },
  getResult: (s: AuctionDay) => s,
  merge: (a: AuctionDay, b: AuctionDay) => {
    a.total += b.total;
    for (let r = 0; r < 3; r++) a.ranks[r]! += b.ranks[r]!;
    a.min = Math.min(a.min, b.min);
    a.max = Math.max(a.max, b.max);
    a.sum += b.sum;
    return a;
  },
};

export const QUERIES: Readonly<Record<string, Query>> = {
  ...JOIN_QUERIES,
  /** Pass-through: every bid. */
  q0: (events) => bids(events).map((b: Bid) => `${b.auction}\t${b.bidder}\t${b.price}\t${b.dateTime}\t${b.extra}`, { name: 'q0' }),
  /** Currency conversion: bids' prices in euros. */
  q1: (events) => bids(events).map((b: Bid) => `${b.auction}\t${b.bidder}\t${dollarsToEuros(b.price)}\t${b.dateTime}\t${b.extra}`, { name: 'q1' }),
  /** Selection: the bids on every 123rd auction. */
  q2: (events) => bids(events).filter((b: Bid) => b.auction % 123 === 0, { name: 'q2 filter' }).map((b: Bid) => `${b.auction}\t${b.price}`, { name: 'q2' }),
  /**
   * Hot items: per sliding window (10 s, every 2 s), the auctions with the most bids. `start, auction, count`.
   * The counts of a window are emitted with its last millisecond as their timestamp, so the
   * tumbling windows of the slide that follow group them by the sliding window they count; both
   * steps aggregate in two phases (the counts by panes of 2 s before their exchange, the highest
   * count of a window in each upstream subtask before one subtask picks the window's highest).
   */
  q5: (events) =>
    bidColumn(events, 'auction')
      .keyBy((auction: number) => auction)
      .window(SlidingEventTimeWindows.of(10_000, 2_000))
      .localAggregation()
      .aggregate(countBids, { process: (auction: number, _ctx: WindowContext<TimeWindow>, [num]: readonly number[], out: Collector<{ auction: number; num: number }>) => out.collect({ auction, num: num! }) }, { name: 'q5 counts', uid: 'q5-counts' })
      .keyBy(() => 0)
      .window(TumblingEventTimeWindows.of(2_000))
      .localAggregation()
      .aggregate(hottest, { process: (_k: number, ctx: WindowContext<TimeWindow>, [best]: readonly Highest<number>[], out: Collector<string>) => {
        for (const a of best!.items) out.collect(`${ctx.window().end - 10_000}\t${a}\t${best!.max}`);
      } }, { name: 'q5 hottest', uid: 'q5-hottest' }),
  /**
   * Highest bid: per tumbling window of 10 s, the bids at its highest price. `start, auction, price, bidder, dateTime, extra`.
   * One group per window, as the SQL's MAX over the window: aggregated in two phases (each
   * upstream subtask keeps its own highest bids of the window and sends them once), so the one
   * window subtask merges a few accumulators per window instead of taking every bid.
   */
  q7: (events) =>
    bids(events)
      .keyBy(() => 0)
      .window(TumblingEventTimeWindows.of(10_000))
      .localAggregation()
      .aggregate(highestBids, { process: (_k: number, ctx: WindowContext<TimeWindow>, [best]: readonly Highest<Bid>[], out: Collector<string>) => {
        for (const b of best!.items) out.collect(`${ctx.window().start}\t${b.auction}\t${b.price}\t${b.bidder}\t${b.dateTime}\t${b.extra}`);
      } }, { name: 'q7', uid: 'q7' }),
  /** User sessions: bids per bidder and session (gap 10 s). `bidder, count, start, end`. */
  q11: (events) =>
    bidColumn(events, 'bidder')
      .keyBy((bidder: number) => bidder)
      .window(EventTimeSessionWindows.withGap(10_000))
      .aggregate(countBids, { process: (bidder: number, ctx: WindowContext<TimeWindow>, [n]: readonly number[], out: Collector<string>) => out.collect(`${bidder}\t${n}\t${ctx.window().start}\t${ctx.window().end}`) }, { name: 'q11', uid: 'q11' }),
  /** Processing-time windows: bids per bidder per 10 s of processing time. `bidder, count, start, end`. */
  q12: (events, settings) =>
    bidColumn(events, 'bidder')
      .keyBy((bidder: number) => bidder)
      .window(TumblingProcessingTimeWindows.of(settings?.q12WindowMs ?? 10_000))
      .aggregate(countBids, { process: (bidder: number, ctx: WindowContext<TimeWindow>, [n]: readonly number[], out: Collector<string>) => out.collect(`${bidder}\t${n}\t${ctx.window().start}\t${ctx.window().end}`) }, { name: 'q12', uid: 'q12' }),
  /** A computation: bids between 1.1M and 55M, in euros, with the time of day and the c's in extra. */
  q14: (events) =>
    bids(events).flatMap((b: Bid) => {
      const euros = b.price * 908;
      if (!(euros > 1_000_000_000 && euros < 50_000_000_000)) return [];
      return [`${b.auction}\t${b.bidder}\t${dollarsToEuros(b.price)}\t${bidTimeType(b.dateTime)}\t${b.dateTime}\t${countChar(b.extra, 'c')}`];
    }, { name: 'q14' }),
  /** Per-day bid statistics with distinct counts. `day, total, ranks, bidders (all, by rank), auctions (all, by rank)`. */
  q15: (events) =>
    bidSummaries(events)
      .keyBy((b: BidSummary) => dayOf(b.dateTime))
      .window(TumblingEventTimeWindows.of(DAY))
      .localAggregation()
      .aggregate(dayStats, { process: (day: string, _c: WindowContext<TimeWindow>, [s]: readonly DayStats[], out: Collector<string>) => out.collect(`${day}\t${dayStatsFields(s!)}`) }, { name: 'q15', uid: 'q15' }),
  /** Per channel and day, the same and the last minute of the day with a bid. */
  q16: (events) =>
    bidSummaries(events)
      .keyBy((b: BidSummary) => `${b.channel}\t${dayOf(b.dateTime)}`)
      .window(TumblingEventTimeWindows.of(DAY))
      .localAggregation()
      .aggregate(dayStats, { process: (key: string, _c: WindowContext<TimeWindow>, [s]: readonly DayStats[], out: Collector<string>) => out.collect(`${key}\t${minuteOf(s!.maxTime)}\t${dayStatsFields(s!)}`) }, { name: 'q16', uid: 'q16' }),
  /** Auction statistics per day. `auction, day, total, ranks, min, max, avg, sum`. */
  q17: (events) =>
    bidSummaries(events)
      .keyBy((b: BidSummary) => b.auction)
      .window(TumblingEventTimeWindows.of(DAY))
      .localAggregation()
      .aggregate(auctionDay, { process: (auction: number, ctx: WindowContext<TimeWindow>, [s]: readonly AuctionDay[], out: Collector<string>) => out.collect(`${auction}\t${dayOf(ctx.window().start)}\t${s!.total}\t${s!.ranks.join('\t')}\t${s!.min}\t${s!.max}\t${Math.trunc(s!.sum / s!.total)}\t${s!.sum}`) }, { name: 'q17', uid: 'q17' }),
  /** The last bid of each bidder on each auction (a changelog). */
  q18: (events) =>
    bids(events)
      .keyBy((b: Bid) => `${b.bidder}:${b.auction}`)
      .process(() => new LastBid(), { name: 'q18', uid: 'q18' }),
  /** The 10 highest bids of each auction (a changelog). */
  q19: (events) =>
    bids(events)
      .process(() => new LocalTopBids(), { name: 'q19 local top 10' })
      .keyBy((b: Bid) => b.auction)
      .process(() => new TopBids(), { name: 'q19', uid: 'q19' }),
  /** String functions: the channel's id, from a table or the url's channel_id parameter. */
  q21: (events) =>
    bids(events).flatMap((b: Bid) => {
      const id = channelId(b);
      return id === null ? [] : [`${b.auction}\t${b.bidder}\t${b.price}\t${b.channel}\t${id}`];
    }, { name: 'q21' }),
  /** String functions: the url's first three directories. */
  q22: (events) =>
    bids(events).map((b: Bid) => {
      const parts = b.url.split('/');
      return `${b.auction}\t${b.bidder}\t${b.price}\t${b.channel}\t${parts[3] ?? ''}\t${parts[4] ?? ''}\t${parts[5] ?? ''}`;
    }, { name: 'q22' }),
};
