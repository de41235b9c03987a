// Nexmark's join queries (q3, q4, q8, q9, q20) on weir's two-input operators. The regular joins
// of the SQL (q3, q20, and the auction-bid join inside q4 and q9) are keyed co-process functions:
// each side's rows wait in keyed state for the other's (a bid can arrive before its auction when
// they come from different lanes). An auction or person that can never match is kept as a marker,
// so the rows waiting for it are dropped instead of kept for ever. q4 and q9 update their results
// and emit a changelog (`+<TAB>row`, `-<TAB>row`), as Flink's SQL does; q8 joins tumbling windows.
import {
  ListStateDescriptor,
  TumblingEventTimeWindows,
  ValueStateDescriptor,
  type Collector,
  type DataStream,
  type KeyedCoProcessFunction,
  type KeyedContext,
  type KeyedProcessFunction,
  type ListState,
  type RuntimeContext,
  type ValueState,
} from 'weir-stream';
import type { Auction, Bid, NexmarkEvent, Person } from 'weir-stream/connectors/nexmark';
import type { Query } from './queries.ts';

const persons = (events: DataStream<NexmarkEvent>): DataStream<Person> => events.flatMap((e: NexmarkEvent) => (e.person === null ? [] : [e.person]), { name: 'Persons' });
const auctions = (events: DataStream<NexmarkEvent>): DataStream<Auction> => events.flatMap((e: NexmarkEvent) => (e.auction === null ? [] : [e.auction]), { name: 'Auctions' });
const bids = (events: DataStream<NexmarkEvent>): DataStream<Bid> => events.flatMap((e: NexmarkEvent) => (e.bid === null ? [] : [e.bid]), { name: 'Bids' });

/** q3's states of the sellers it reports. */
const Q3_STATES = new Set(['OR', 'ID', 'CA']);
/** The category of q3 and q20. */
const CATEGORY = 10;

export const auctionRow = (a: Auction): string => `${a.id}\t${a.itemName}\t${a.description}\t${a.initialBid}\t${a.reserve}\t${a.dateTime}\t${a.expires}\t${a.seller}\t${a.category}\t${a.extra}`;

/** q9's order: the higher price wins, then the earlier bid, then the other fields (a total order, so the winner does not depend on arrival). */
export function betterBid(a: Bid, b: Bid): boolean {
  const c = a.price - b.price || b.dateTime - a.dateTime || b.bidder - a.bidder || cmp(b.channel, a.channel) || cmp(b.url, a.url) || cmp(b.extra, a.extra);
  return c > 0;
}
const cmp = (x: string, y: string): number => (x < y ? -1 : x > y ? 1 : 0);

/** A bid counts for an auction while the auction is open (`B.dateTime BETWEEN A.dateTime AND A.expires`). */
export const duringAuction = (b: { dateTime: number }, a: { dateTime: number; expires: number }): boolean => b.dateTime >= a.dateTime && b.dateTime <= a.expires;

/**
 * One side known per key (a person by id, an auction by id), the other's rows waiting in state
 * until it arrives; `matches` decides for each waiting or arriving row. A known side that cannot
 * match (`null`: a person of another state, an auction of another category) is kept as such.
 */
abstract class KeyedLookupJoin<Known, Row, O> implements KeyedCoProcessFunction<number, Known, Row, O> {
  #known!: ValueState<{ value: Known | null }>;
  #waiting!: ListState<Row>;

  open(ctx: RuntimeContext): void {
    this.#known = ctx.getState(new ValueStateDescriptor<{ value: Known | null }>('known'));
    this.#waiting = ctx.getListState(new ListStateDescriptor<Row>('waiting'));
  }

  /** The known side, or null when no row can match it. */
  protected abstract keep(known: Known): Known | null;
  protected abstract join(known: Known, rows: readonly Row[], out: Collector<O>): void;

  processElement1(known: Known, _ctx: KeyedContext<number>, out: Collector<O>): void {
    const kept = this.keep(known);
    this.#known.update({ value: kept });
    const waiting = this.#waiting.get();
    this.#waiting.clear();
    if (kept !== null && waiting.length > 0) this.join(kept, waiting, out);
  }

  processElement2(row: Row, _ctx: KeyedContext<number>, out: Collector<O>): void {
    const known = this.#known.value();
    if (known === undefined) this.#waiting.add(row);
    else if (known.value !== null) this.join(known.value, [row], out);
  }
}

interface Seller {
  readonly id: number;
  readonly name: string;
  readonly city: string;
  readonly state: string;
}

/** q3: sellers of OR, ID and CA with their auctions of category 10. */
class LocalItems extends KeyedLookupJoin<Seller, { seller: number; id: number }, string> {
  protected keep(p: Seller): Seller | null {
    return Q3_STATES.has(p.state) ? p : null;
  }
  protected join(p: Seller, items: readonly { id: number }[], out: Collector<string>): void {
    for (const a of items) out.collect(`${p.name}\t${p.city}\t${p.state}\t${a.id}`);
  }
}

/** q20: bids with their auction's columns, for auctions of category 10. */
class BidsWithAuction extends KeyedLookupJoin<Auction, Bid, string> {
  protected keep(a: Auction): Auction | null {
    return a.category === CATEGORY ? a : null;
  }
  protected join(a: Auction, rows: readonly Bid[], out: Collector<string>): void {
    for (const b of rows) out.collect(`${b.auction}\t${b.bidder}\t${b.price}\t${b.channel}\t${b.url}\t${b.dateTime}\t${b.extra}\t${a.itemName}\t${a.description}\t${a.initialBid}\t${a.reserve}\t${a.dateTime}\t${a.expires}\t${a.seller}\t${a.category}\t${a.extra}`);
  }
}

/** A change of an auction's highest bid (q4's inner GROUP BY), for its category. */
interface FinalPriceChange {
  readonly category: number;
  /** The highest price before, or null for the auction's first bid. */
  readonly before: number | null;
  readonly after: number;
}

interface AuctionWindow {
  readonly category: number;
  readonly dateTime: number;
  readonly expires: number;
}

/** q4's inner query: per auction, the highest price of the bids while it was open; each change goes on. */
class FinalPrice extends KeyedLookupJoin<AuctionWindow, { price: number; dateTime: number }, FinalPriceChange> {
  #max!: ValueState<number>;
  override open(ctx: RuntimeContext): void {
    super.open(ctx);
    this.#max = ctx.getState(new ValueStateDescriptor<number>('max'));
  }
  protected keep(a: AuctionWindow): AuctionWindow {
    return a;
  }
  protected join(a: AuctionWindow, rows: readonly { price: number; dateTime: number }[], out: Collector<FinalPriceChange>): void {
    const before = this.#max.value() ?? null;
    let max = before;
    for (const b of rows) if (duringAuction(b, a) && (max === null || b.price > max)) max = b.price;
    if (max === null || max === before) return;
    this.#max.update(max);
    out.collect({ category: a.category, before, after: max });
  }
}

/** q4's outer query: per category, the average final price (truncated, as SQL's AVG of BIGINT), as a changelog. */
class AveragePerCategory implements KeyedProcessFunction<number, FinalPriceChange, string> {
  #sums!: ValueState<{ sum: number; count: number }>;
  open(ctx: RuntimeContext): void {
    this.#sums = ctx.getState(new ValueStateDescriptor<{ sum: number; count: number }>('sums'));
  }
  processElement(c: FinalPriceChange, _ctx: KeyedContext<number>, out: Collector<string>): void {
    const old = this.#sums.value();
    const sum = (old?.sum ?? 0) + c.after - (c.before ?? 0);
    const count = (old?.count ?? 0) + (c.before === null ? 1 : 0);
    this.#sums.update({ sum, count });
    const [was, now] = [old ? Math.trunc(old.sum / old.count) : undefined, Math.trunc(sum / count)];
    if (was === now) return;
    if (was !== undefined) out.collect(`-\t${c.category}\t${was}`);
    out.collect(`+\t${c.category}\t${now}`);
  }
}

/** q9: per auction, the winning bid while it was open, with the auction's columns, as a changelog. */
class WinningBid extends KeyedLookupJoin<Auction, Bid, string> {
  #best!: ValueState<Bid>;
  override open(ctx: RuntimeContext): void {
    super.open(ctx);
    this.#best = ctx.getState(new ValueStateDescriptor<Bid>('best'));
  }
  protected keep(a: Auction): Auction {
    return a;
  }
  protected join(a: Auction, rows: readonly Bid[], out: Collector<string>): void {
    const before = this.#best.value();
    let best = before;
    for (const b of rows) if (duringAuction(b, a) && (best === undefined || betterBid(b, best))) best = b;
    if (best === undefined || best === before) return;
    this.#best.update(best);
    if (before !== undefined) out.collect(`-\t${winningRow(a, before)}`);
    out.collect(`+\t${winningRow(a, best)}`);
  }
}

export const winningRow = (a: Auction, b: Bid): string => `${auctionRow(a)}\t${b.auction}\t${b.bidder}\t${b.price}\t${b.dateTime}\t${b.extra}`;

export const JOIN_QUERIES: Readonly<Record<string, Query>> = {
  /** Local item suggestion: sellers in OR, ID, CA and their auctions of category 10. `name, city, state, auction`. */
  q3: (events) =>
    persons(events)
      .map((p: Person): Seller => ({ id: p.id, name: p.name, city: p.city, state: p.state }), { name: 'q3 sellers' })
      .keyBy((p) => p.id)
      .connect(
        auctions(events)
          .flatMap((a: Auction) => (a.category === CATEGORY ? [{ seller: a.seller, id: a.id }] : []), { name: 'q3 items' })
          .keyBy((a) => a.seller),
      )
      .process(() => new LocalItems(), { name: 'q3', uid: 'q3' }),
  /** Average price per category: the average of the auctions' final prices (a changelog). `category, average`. */
  q4: (events) =>
    auctions(events)
      .map((a: Auction): AuctionWindow & { id: number } => ({ id: a.id, category: a.category, dateTime: a.dateTime, expires: a.expires }), { name: 'q4 auctions' })
      .keyBy((a) => a.id)
      .connect(bids(events).map((b: Bid) => ({ auction: b.auction, price: b.price, dateTime: b.dateTime }), { name: 'q4 bids' }).keyBy((b) => b.auction))
      .process(() => new FinalPrice(), { name: 'q4 final prices', uid: 'q4-final' })
      .keyBy((c) => c.category)
      .process(() => new AveragePerCategory(), { name: 'q4', uid: 'q4' }),
  /** New users: persons who opened auctions in the 10 s window they registered in. `id, name, window start`. */
  q8: (events) =>
    persons(events)
      .coGroup(auctions(events))
      .where((p: Person) => p.id)
      .equalTo((a: Auction) => a.seller)
      .window(TumblingEventTimeWindows.of(10_000))
      .apply((ps: readonly Person[], as: readonly Auction[], out: Collector<string>) => {
        if (as.length === 0) return;
        for (const p of ps) out.collect(`${p.id}\t${p.name}\t${p.dateTime - (p.dateTime % 10_000)}`);
      }, { name: 'q8', uid: 'q8' }),
  /** Winning bids: per auction, the highest bid while it was open (earliest on a tie), with the auction (a changelog). */
  q9: (events) =>
    auctions(events)
      .keyBy((a: Auction) => a.id)
      .connect(bids(events).keyBy((b: Bid) => b.auction))
      .process(() => new WinningBid(), { name: 'q9', uid: 'q9' }),
  /** Bids with their auction's columns, for auctions of category 10. */
  q20: (events) =>
    auctions(events)
      .keyBy((a: Auction) => a.id)
      .connect(bids(events).keyBy((b: Bid) => b.auction))
      .process(() => new BidsWithAuction(), { name: 'q20', uid: 'q20' }),
};
