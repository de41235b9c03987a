import { JavaRandom } from './java-random.ts';
import type { Auction, Bid, NexmarkEvent, Person } from './nexmark-model.ts';
import { maxOutOfOrdernessMs, resolveNexmarkOptions, type NexmarkConfig, type NexmarkOptions } from './nexmark-options.ts';
import { nextExtra, nextLongBelow, nextPrice, nextString } from './nexmark-strings.ts';

export const FIRST_PERSON_ID = 1000;
export const FIRST_AUCTION_ID = 1000;
export const FIRST_CATEGORY_ID = 10;
const NUM_CATEGORIES = 5;
const PERSON_ID_LEAD = 10;
const AUCTION_ID_LEAD = 10;
const HOT_SELLER_RATIO = 100;
const HOT_AUCTION_RATIO = 100;
const HOT_BIDDER_RATIO = 100;
const HOT_CHANNELS_RATIO = 2;
const CHANNELS_NUMBER = 10_000;
const HOT_CHANNELS = ['Google', 'Facebook', 'Baidu', 'Apple'] as const;
const US_STATES = ['AZ', 'CA', 'ID', 'OR', 'WA', 'WY'];
const US_CITIES = ['Phoenix', 'Los Angeles', 'San Francisco', 'Boise', 'Portland', 'Bend', 'Redmond', 'Seattle', 'Kent', 'Cheyenne'];
const FIRST_NAMES = ['Peter', 'Paul', 'Luke', 'John', 'Saul', 'Vicky', 'Kate', 'Julie', 'Sarah', 'Deiter', 'Walter'];
const LAST_NAMES = ['Shultz', 'Abrams', 'Spencer', 'White', 'Bartels', 'Walton', 'Smith', 'Jones', 'Noris'];
/**
 * The seed of an event's delay draw: its id scrambled (a 32-bit integer hash of each half), since
 * the draws of java.util.Random under consecutive seeds are correlated (a quarter asked for, a
 * third drawn), and apart from the event's own seed, so its fields do not change.
 */
function delaySeed(eventId: number): number {
  return scramble(eventId >>> 0) + 2 ** 32 * (scramble(Math.floor(eventId / 2 ** 32) ^ 0x64656c61) & 0xfffff);
}

function scramble(x: number): number {
  const a = Math.imul(x ^ (x >>> 16), 0x45d9f3b);
  const b = Math.imul(a ^ (a >>> 16), 0x45d9f3b);
  return (b ^ (b >>> 16)) >>> 0;
}
const CARD_GROUPS = Array.from({ length: 10_000 }, (_, i) => String(i).padStart(4, '0'));

function baseUrl(r: JavaRandom): string {
  return `https://www.nexmark.com/${nextString(r, 5, '_')}/${nextString(r, 5, '_')}/${nextString(r, 5, '_')}/item.htm?query=1`;
}

/** Java's Math.abs(Integer.reverse(i)). */
function reversedBits(i: number): number {
  let x = i >>> 0;
  let r = 0;
  for (let b = 0; b < 32; b++) {
    r = (r << 1) | (x & 1);
    x >>>= 1;
  }
  return Math.abs(r | 0);
}

/** The Flink port's channels and URLs (it adds them to Beam's bids), from a fixed seed so runs repeat. */
interface Channels {
  readonly hotUrls: readonly string[];
  readonly names: readonly string[];
  readonly urls: readonly string[];
}
let channels: Channels | undefined;
function channelTable(): Channels {
  if (channels === undefined) {
    const r = new JavaRandom(0x63686e6c);
    const hotUrls = HOT_CHANNELS.map(() => baseUrl(r));
    const names: string[] = [];
    const urls: string[] = [];
    for (let i = 0; i < CHANNELS_NUMBER; i++) {
      let url = baseUrl(r);
      if (r.nextIntBelow(10) > 0) url += `&channel_id=${reversedBits(i)}`;
      names.push(`channel-${i}`);
      urls.push(url);
    }
    channels = { hotUrls, names, urls };
  }
  return channels;
}

/**
 * Beam's Nexmark generator by event number: event n is made from a java.util.Random seeded with its
 * event id alone, so any event can be made on its own, in any order, on any thread, and is the
 * same each time. Event numbers are one timeline for all readers: the events of a run do not
 * depend on how many lanes read them.
 */
export class NexmarkGenerator {
  readonly config: NexmarkConfig;
  readonly #random = new JavaRandom();
  readonly #delayRandom = new JavaRandom();
  readonly #channels = channelTable();

  constructor(options: NexmarkOptions | NexmarkConfig = {}) {
    this.config = 'totalProportion' in options ? options : resolveNexmarkOptions(options);
  }

  /** Event number n after shuffling within its out-of-order group (Beam's nextAdjustedEventNumber). */
  adjustedEventNumber(n: number): number {
    const g = this.config.outOfOrderGroupSize;
    if (g === 1) return n;
    const offset = n < 9e12 ? (n * 953) % g : mulMod(n, 953, g);
    return n - (n % g) + offset;
  }

  /** The event time of event number n (after the out-of-order shuffle). */
  timestampOf(n: number): number {
    return this.#timestampForEventNumber(this.adjustedEventNumber(n));
  }

  /** The upper bound, ms, of how far an event's time is behind one before it. */
  get maxOutOfOrderness(): number {
    return maxOutOfOrdernessMs(this.config);
  }

  /**
   * How many event numbers event n is held back by (0 for most): with probability
   * probDelayedEvent, 1 ms to occasionalDelaySec of event time, as Beam draws it, in events.
   */
  delayOf(n: number): number {
    const c = this.config;
    if (c.probDelayedEvent === 0) return 0;
    const r = this.#delayRandom;
    r.setSeed(delaySeed(c.firstEventId + n));
    if (r.nextDouble() >= c.probDelayedEvent) return 0;
    const ms = r.nextIntBelow(c.occasionalDelaySec * 1000) + 1;
    return Math.ceil((ms * 1000) / c.interEventDelayUs);
  }

  eventAt(n: number): NexmarkEvent {
    const c = this.config;
    const adjusted = this.adjustedEventNumber(n);
    const timestamp = this.#timestampForEventNumber(adjusted);
    const eventId = c.firstEventId + adjusted;
    const random = this.#random;
    random.setSeed(eventId);
    const rem = eventId % c.totalProportion;
    if (rem < c.personProportion) return { kind: 'person', person: this.#person(eventId, random, timestamp), auction: null, bid: null };
    if (rem < c.personProportion + c.auctionProportion) return { kind: 'auction', person: null, auction: this.#auction(adjusted, eventId, random, timestamp), bid: null };
    return { kind: 'bid', person: null, auction: null, bid: this.#bid(eventId, random, timestamp) };
  }

  #timestampForEventNumber(n: number): number {
    return this.config.baseTime + Math.floor(Math.floor(n * this.config.interEventDelayUs) / 1000);
  }

  #person(eventId: number, r: JavaRandom, timestamp: number): Person {
    const id = this.lastBase0PersonId(eventId) + FIRST_PERSON_ID;
    const name = `${FIRST_NAMES[r.nextIntBelow(FIRST_NAMES.length)]} ${LAST_NAMES[r.nextIntBelow(LAST_NAMES.length)]}`;
    const emailAddress = `${nextString(r, 7)}@${nextString(r, 5)}.com`;
    const creditCard = `${CARD_GROUPS[r.nextIntBelow(10_000)]} ${CARD_GROUPS[r.nextIntBelow(10_000)]} ${CARD_GROUPS[r.nextIntBelow(10_000)]} ${CARD_GROUPS[r.nextIntBelow(10_000)]}`;
    const city = US_CITIES[r.nextIntBelow(US_CITIES.length)]!;
    const state = US_STATES[r.nextIntBelow(US_STATES.length)]!;
    const size = 8 + name.length + emailAddress.length + creditCard.length + city.length + state.length;
    const extra = nextExtra(r, size, this.config.avgPersonByteSize);
    return { id, name, emailAddress, creditCard, city, state, dateTime: timestamp, extra };
  }

  #auction(eventNumber: number, eventId: number, r: JavaRandom, timestamp: number): Auction {
    const c = this.config;
    const id = this.lastBase0AuctionId(eventId) + FIRST_AUCTION_ID;
    const seller = (r.nextIntBelow(c.hotSellersRatio) > 0 ? Math.floor(this.lastBase0PersonId(eventId) / HOT_SELLER_RATIO) * HOT_SELLER_RATIO : this.#nextBase0PersonId(eventId, r)) + FIRST_PERSON_ID;
    const category = FIRST_CATEGORY_ID + r.nextIntBelow(NUM_CATEGORIES);
    const initialBid = nextPrice(r);
    const expires = timestamp + this.#nextAuctionLengthMs(eventNumber, r, timestamp);
    const itemName = nextString(r, 20);
    const description = nextString(r, 100);
    const reserve = initialBid + nextPrice(r);
    const size = 8 + itemName.length + description.length + 8 + 8 + 8 + 8 + 8;
    const extra = nextExtra(r, size, c.avgAuctionByteSize);
    return { id, itemName, description, initialBid, reserve, dateTime: timestamp, expires, seller, category, extra };
  }

  #bid(eventId: number, r: JavaRandom, timestamp: number): Bid {
    const c = this.config;
    const auction = (r.nextIntBelow(c.hotAuctionRatio) > 0 ? Math.floor(this.lastBase0AuctionId(eventId) / HOT_AUCTION_RATIO) * HOT_AUCTION_RATIO : this.#nextBase0AuctionId(eventId, r)) + FIRST_AUCTION_ID;
    const bidder = (r.nextIntBelow(c.hotBiddersRatio) > 0 ? Math.floor(this.lastBase0PersonId(eventId) / HOT_BIDDER_RATIO) * HOT_BIDDER_RATIO + 1 : this.#nextBase0PersonId(eventId, r)) + FIRST_PERSON_ID;
    const price = nextPrice(r);
    let channel: string;
    let url: string;
    if (r.nextIntBelow(HOT_CHANNELS_RATIO) > 0) {
      const i = r.nextIntBelow(HOT_CHANNELS.length);
      channel = HOT_CHANNELS[i]!;
      url = this.#channels.hotUrls[i]!;
    } else {
      const i = r.nextIntBelow(CHANNELS_NUMBER);
      channel = this.#channels.names[i]!;
      url = this.#channels.urls[i]!;
    }
    const extra = nextExtra(r, 32, c.avgBidByteSize);
    return { auction, bidder, price, channel, url, dateTime: timestamp, extra };
  }

  /** The last person id (base 0) made at or before this event id. */
  lastBase0PersonId(eventId: number): number {
    const c = this.config;
    const epoch = Math.floor(eventId / c.totalProportion);
    let offset = eventId % c.totalProportion;
    if (offset >= c.personProportion) offset = c.personProportion - 1;
    return epoch * c.personProportion + offset;
  }

  /** The last auction id (base 0) made at or before this event id. */
  lastBase0AuctionId(eventId: number): number {
    const c = this.config;
    let epoch = Math.floor(eventId / c.totalProportion);
    let offset = eventId % c.totalProportion;
    if (offset < c.personProportion) {
      epoch--;
      offset = c.auctionProportion - 1;
    } else if (offset >= c.personProportion + c.auctionProportion) {
      offset = c.auctionProportion - 1;
    } else {
      offset -= c.personProportion;
    }
    return epoch * c.auctionProportion + offset;
  }

  #nextBase0PersonId(eventId: number, r: JavaRandom): number {
    const numPeople = this.lastBase0PersonId(eventId) + 1;
    const active = Math.min(numPeople, this.config.numActivePeople);
    return numPeople - active + nextLongBelow(r, active + PERSON_ID_LEAD);
  }

  #nextBase0AuctionId(eventId: number, r: JavaRandom): number {
    const max = this.lastBase0AuctionId(eventId);
    const min = Math.max(max - this.config.numInFlightAuctions, 0);
    return min + nextLongBelow(r, max - min + 1 + AUCTION_ID_LEAD);
  }

  #nextAuctionLengthMs(eventNumber: number, r: JavaRandom, timestamp: number): number {
    const c = this.config;
    const eventsForAuctions = Math.floor((c.numInFlightAuctions * c.totalProportion) / c.auctionProportion);
    const horizonMs = this.#timestampForEventNumber(eventNumber + eventsForAuctions) - timestamp;
    return 1 + nextLongBelow(r, Math.max(horizonMs * 2, 1));
  }
}

/** (a * b) % m without losing precision for large a. */
function mulMod(a: number, b: number, m: number): number {
  return Number((BigInt(a) * BigInt(b)) % BigInt(m));
}
