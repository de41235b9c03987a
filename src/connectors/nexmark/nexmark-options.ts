/**
 * The generator's settings: Nexmark's (NexmarkConfiguration of Beam and the Flink port) under
 * their names, with their defaults, plus what makes a run reproducible (baseTime, firstEventId).
 */
export interface NexmarkOptions {
  /** Events in all; unbounded when omitted. */
  readonly events?: number;
  /** Event time advances by 1e6 / firstEventRate µs per event (default 10,000 events per second of event time). */
  readonly firstEventRate?: number;
  /** Events per second of wall-clock time over all readers; as fast as possible when omitted. */
  readonly ratePerSecond?: number;
  /** Event time of event 0, ms (default 1,700,000,000,000: a fixed instant, so runs are reproducible). */
  readonly baseTime?: number;
  /** Event ids (the per-event seeds) start here (default 0). */
  readonly firstEventId?: number;
  readonly personProportion?: number;
  readonly auctionProportion?: number;
  readonly bidProportion?: number;
  readonly avgPersonByteSize?: number;
  readonly avgAuctionByteSize?: number;
  readonly avgBidByteSize?: number;
  /** 1 - 1/hotAuctionRatio of bids go to the hot auction of the last 100 (default 2). */
  readonly hotAuctionRatio?: number;
  /** 1 - 1/hotSellersRatio of auctions are by the hot seller of the last 100 people (default 4). */
  readonly hotSellersRatio?: number;
  /** 1 - 1/hotBiddersRatio of bids are by the hot bidder of the last 100 people (default 4). */
  readonly hotBiddersRatio?: number;
  readonly numInFlightAuctions?: number;
  readonly numActivePeople?: number;
  /**
   * Events come in groups of this many whose event times are shuffled within the group (default
   * 1: in order). Watermarks from `Nexmark.watermarks` allow for exactly the group's time span.
   */
  readonly outOfOrderGroupSize?: number;
  /**
   * The share of events sent late (default 0: none), each held back by up to
   * `occasionalDelaySec` of event time and sent after the events of that span, with its own
   * (earlier) event time: late data for windows, as Beam's generator's delayed events. Beam
   * delays them by wall-clock time with an unseeded random; here the choice and the delay are
   * seeded per event id, so a replay is exact.
   */
  readonly probDelayedEvent?: number;
  /** The longest delay of a delayed event, seconds of event time (default 3, Beam's). */
  readonly occasionalDelaySec?: number;
}

export interface NexmarkConfig {
  readonly events: number | undefined;
  readonly ratePerSecond: number | undefined;
  readonly interEventDelayUs: number;
  readonly baseTime: number;
  readonly firstEventId: number;
  readonly personProportion: number;
  readonly auctionProportion: number;
  readonly bidProportion: number;
  readonly totalProportion: number;
  readonly avgPersonByteSize: number;
  readonly avgAuctionByteSize: number;
  readonly avgBidByteSize: number;
  readonly hotAuctionRatio: number;
  readonly hotSellersRatio: number;
  readonly hotBiddersRatio: number;
  readonly numInFlightAuctions: number;
  readonly numActivePeople: number;
  readonly outOfOrderGroupSize: number;
  readonly probDelayedEvent: number;
  readonly occasionalDelaySec: number;
}

export class NexmarkOptionError extends TypeError {
  readonly option: string;
  readonly value: unknown;
  constructor(option: string, value: unknown, requirement: string) {
    super(`Nexmark option '${option}' ${requirement}, got ${String(value)}`);
    this.name = 'NexmarkOptionError';
    this.option = option;
    this.value = value;
  }
}

function whole(o: NexmarkOptions, name: keyof NexmarkOptions, fallback: number, min: number): number {
  const v = o[name] ?? fallback;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min) throw new NexmarkOptionError(name, v, `must be a whole number >= ${min}`);
  return v;
}

export function resolveNexmarkOptions(o: NexmarkOptions = {}): NexmarkConfig {
  const person = whole(o, 'personProportion', 1, 0);
  const auction = whole(o, 'auctionProportion', 3, 0);
  const bid = whole(o, 'bidProportion', 46, 0);
  if (person < 1 || person + auction + bid < 1) throw new NexmarkOptionError('personProportion', person, 'must be >= 1 (bids and auctions refer to people)');
  if (o.ratePerSecond !== undefined && !(o.ratePerSecond > 0)) throw new NexmarkOptionError('ratePerSecond', o.ratePerSecond, 'must be > 0');
  const probDelayedEvent = o.probDelayedEvent ?? 0;
  if (typeof probDelayedEvent !== 'number' || !(probDelayedEvent >= 0 && probDelayedEvent <= 1)) throw new NexmarkOptionError('probDelayedEvent', probDelayedEvent, 'must be a number in [0, 1]');
  return {
    events: o.events === undefined ? undefined : whole(o, 'events', 0, 0),
    ratePerSecond: o.ratePerSecond,
    interEventDelayUs: 1e6 / whole(o, 'firstEventRate', 10_000, 1),
    baseTime: whole(o, 'baseTime', 1_700_000_000_000, 0),
    firstEventId: whole(o, 'firstEventId', 0, 0),
    personProportion: person,
    auctionProportion: auction,
    bidProportion: bid,
    totalProportion: person + auction + bid,
    avgPersonByteSize: whole(o, 'avgPersonByteSize', 200, 1),
    avgAuctionByteSize: whole(o, 'avgAuctionByteSize', 500, 1),
    avgBidByteSize: whole(o, 'avgBidByteSize', 100, 1),
    hotAuctionRatio: whole(o, 'hotAuctionRatio', 2, 1),
    hotSellersRatio: whole(o, 'hotSellersRatio', 4, 1),
    hotBiddersRatio: whole(o, 'hotBiddersRatio', 4, 1),
    numInFlightAuctions: whole(o, 'numInFlightAuctions', 100, 1),
    numActivePeople: whole(o, 'numActivePeople', 1000, 1),
    outOfOrderGroupSize: whole(o, 'outOfOrderGroupSize', 1, 1),
    probDelayedEvent,
    occasionalDelaySec: whole(o, 'occasionalDelaySec', 3, 1),
  };
}

/**
 * How far, at most, an event's time is behind one before it: the span of an out-of-order group
 * (0 when events are in order), rounded up, plus 1 ms for the rounding of event times to ms.
 */
export function maxOutOfOrdernessMs(config: NexmarkConfig): number {
  const g = config.outOfOrderGroupSize;
  return g === 1 ? 0 : Math.ceil(((g - 1) * config.interEventDelayUs) / 1000) + 1;
}

/** The most event numbers a delayed event (probDelayedEvent) is held back by: occasionalDelaySec of event time. */
export function maxDelayEvents(config: NexmarkConfig): number {
  return config.probDelayedEvent === 0 ? 0 : Math.ceil((config.occasionalDelaySec * 1e6) / config.interEventDelayUs);
}
