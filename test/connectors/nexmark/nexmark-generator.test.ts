import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JavaRandom, maxDelayEvents, NexmarkGenerator, NexmarkOptionError, FIRST_AUCTION_ID, FIRST_PERSON_ID } from '../../../src/connectors/nexmark/index.ts';

test('JavaRandom draws what java.util.Random draws for the same seed (values printed by OpenJDK 17)', () => {
  // new Random(seed): nextInt(), nextInt(10), nextInt(64), nextInt(1000000007), nextDouble(), nextLong(), nextInt(13)
  const jdk: Array<[number, number, number, number, number, number, string, number]> = [
    [0, -1155484576, 8, 15, 302116440, 0.6374174253501083, '-8292973307042192125', 3],
    [1, -1155869325, 8, 26, 874970313, 0.20771484130971707, '6137546356583794141', 9],
    [42, -1170105035, 3, 43, 102948884, 0.30871945533265976, '5111195811822994797', 3],
    [1000, -1244746321, 5, 36, 988461124, 0.9464192094792073, '726911540391045867', 10],
    [123456789012, 59424925, 7, 33, 901063691, 0.37897836041502697, '-8339665603014057956', 1],
    [9007199254740991, 1155099827, 5, 0, 176895432, 0.6620844841121951, '7681931065131779340', 9],
  ];
  for (const [seed, ...expected] of jdk) {
    const r = new JavaRandom(seed);
    assert.deepEqual([r.nextInt(), r.nextIntBelow(10), r.nextIntBelow(64), r.nextIntBelow(1000000007), r.nextDouble(), String(r.nextLong()), r.nextIntBelow(13)], expected, `seed ${seed}`);
  }
});

test('event kind by event id % 50: one person, three auctions, 46 bids; ids count up from 1000', () => {
  const g = new NexmarkGenerator();
  let nextPerson = FIRST_PERSON_ID;
  let nextAuction = FIRST_AUCTION_ID;
  const kinds = { person: 0, auction: 0, bid: 0 };
  for (let n = 0; n < 5000; n++) {
    const e = g.eventAt(n);
    kinds[e.kind]++;
    const rem = n % 50;
    assert.equal(e.kind, rem === 0 ? 'person' : rem <= 3 ? 'auction' : 'bid', `event ${n}`);
    if (e.person) assert.equal(e.person.id, nextPerson++);
    if (e.auction) {
      assert.equal(e.auction.id, nextAuction++);
      assert.ok(e.auction.seller >= FIRST_PERSON_ID && e.auction.seller < nextPerson + 10, `seller ${e.auction.seller} is a person made so far (or a lead)`);
      assert.ok(e.auction.expires > e.auction.dateTime);
      assert.ok(e.auction.category >= 10 && e.auction.category < 15);
      assert.ok(e.auction.reserve >= e.auction.initialBid);
    }
    if (e.bid) {
      assert.ok(e.bid.auction >= FIRST_AUCTION_ID && e.bid.auction < nextAuction + 10, `bid's auction ${e.bid.auction}`);
      assert.ok(e.bid.bidder >= FIRST_PERSON_ID && e.bid.bidder < nextPerson + 10, `bid's bidder ${e.bid.bidder}`);
      assert.ok(e.bid.price >= 100 && e.bid.price <= 100_000_000);
    }
  }
  assert.deepEqual(kinds, { person: 100, auction: 300, bid: 4600 });
});

// java.util.Random's first draw after seeding with consecutive ids is correlated with the id, so
// the shares are not exactly 1 - 1/ratio (nor are they in Beam, which seeds the same way).
test('hot auctions and bidders: the hot auction of the last 100 and the hot bidder take far more bids than any other', () => {
  const g = new NexmarkGenerator();
  let bids = 0;
  let hotAuction = 0;
  let hotBidder = 0;
  for (let n = 100_000; n < 120_000; n++) {
    const b = g.eventAt(n).bid;
    if (!b) continue;
    bids++;
    if ((b.auction - FIRST_AUCTION_ID) % 100 === 0) hotAuction++;
    if ((b.bidder - FIRST_PERSON_ID) % 100 === 1) hotBidder++;
  }
  assert.ok(hotAuction / bids > 0.3, `hot auction share ${hotAuction / bids}`);
  assert.ok(hotBidder / bids > 0.5, `hot bidder share ${hotBidder / bids}`);
});

test('record sizes average what is configured: bids 100, auctions 500, people 200 bytes', () => {
  const g = new NexmarkGenerator();
  const size = { person: [0, 0], auction: [0, 0], bid: [0, 0] };
  for (let n = 0; n < 20_000; n++) {
    const e = g.eventAt(n);
    const s = size[e.kind];
    s[1]!++;
    if (e.bid) s[0]! += 32 + e.bid.extra.length;
    if (e.auction) s[0]! += 48 + e.auction.itemName.length + e.auction.description.length + e.auction.extra.length;
    if (e.person) {
      const p = e.person;
      s[0]! += 8 + p.name.length + p.emailAddress.length + p.creditCard.length + p.city.length + p.state.length + p.extra.length;
    }
  }
  for (const [kind, target] of [['bid', 100], ['auction', 500], ['person', 200]] as const) {
    const avg = size[kind][0]! / size[kind][1]!;
    assert.ok(Math.abs(avg - target) < target * 0.05, `${kind} average ${avg}, configured ${target}`);
  }
});

test('each event depends on its number alone: the same in any order and in another generator', () => {
  const a = new NexmarkGenerator({ outOfOrderGroupSize: 7 });
  const b = new NexmarkGenerator({ outOfOrderGroupSize: 7 });
  const forward = Array.from({ length: 500 }, (_, n) => a.eventAt(n));
  for (let n = 499; n >= 0; n--) assert.deepEqual(b.eventAt(n), forward[n]);
  const other = new NexmarkGenerator({ firstEventId: 1_000_000 });
  assert.notDeepEqual(other.eventAt(4).bid, a.eventAt(4).bid);
});

test('event time advances 1e6 / firstEventRate µs per event; out-of-order groups shuffle within the bound the watermarks allow', () => {
  const inOrder = new NexmarkGenerator({ firstEventRate: 4000 });
  for (let n = 0; n < 1000; n++) assert.equal(inOrder.timestampOf(n), 1_700_000_000_000 + Math.floor((n * 250) / 1000));
  assert.equal(inOrder.maxOutOfOrderness, 0);

  const g = new NexmarkGenerator({ firstEventRate: 1000, outOfOrderGroupSize: 10 });
  assert.equal(g.maxOutOfOrderness, 10);
  let maxSeen = -Infinity;
  let behind = 0;
  for (let n = 0; n < 1000; n++) {
    const ts = g.timestampOf(n);
    assert.equal(g.eventAt(n).bid?.dateTime ?? g.eventAt(n).auction?.dateTime ?? g.eventAt(n).person?.dateTime, ts);
    if (ts < maxSeen) behind++;
    assert.ok(ts >= maxSeen - g.maxOutOfOrderness, `event ${n} at ${ts} is later than the bound behind ${maxSeen}`);
    maxSeen = Math.max(maxSeen, ts);
  }
  assert.ok(behind > 100, `the groups are shuffled: ${behind} events behind an earlier one`);
  // Within a group the event numbers are a permutation of the group's.
  const group = Array.from({ length: 10 }, (_, i) => g.adjustedEventNumber(30 + i)).sort((x, y) => x - y);
  assert.deepEqual(group, Array.from({ length: 10 }, (_, i) => 30 + i));
});

test('bad options are refused with the option named', () => {
  assert.throws(() => new NexmarkGenerator({ firstEventRate: 0 }), (e: unknown) => e instanceof NexmarkOptionError && e.option === 'firstEventRate');
  assert.throws(() => new NexmarkGenerator({ outOfOrderGroupSize: 1.5 }), (e: unknown) => e instanceof NexmarkOptionError && e.option === 'outOfOrderGroupSize');
});

test('delayed events: about probDelayedEvent of them, each by 1 ms to occasionalDelaySec of event time in events, the same every time; none by default', () => {
  assert.equal(new NexmarkGenerator().delayOf(123), 0);
  const g = new NexmarkGenerator({ firstEventRate: 1000, probDelayedEvent: 0.25, occasionalDelaySec: 2 });
  const max = maxDelayEvents(g.config);
  assert.equal(max, 2000); // 2 s of event time at 1 event per ms
  let delayed = 0;
  for (let n = 0; n < 20_000; n++) {
    const d = g.delayOf(n);
    assert.ok(Number.isInteger(d) && d >= 0 && d <= max, `delay ${d} of event ${n}`);
    if (d > 0) delayed++;
    assert.equal(new NexmarkGenerator(g.config).delayOf(n), d, 'seeded per event');
  }
  assert.ok(Math.abs(delayed / 20_000 - 0.25) < 0.02, `share delayed: ${delayed / 20_000}`);
  // The event itself does not change: its own draws are seeded apart from the delay's.
  assert.deepEqual(g.eventAt(77), new NexmarkGenerator({ firstEventRate: 1000 }).eventAt(77));
  assert.throws(() => new NexmarkGenerator({ probDelayedEvent: 1.5 }), (e: unknown) => e instanceof NexmarkOptionError && e.option === 'probDelayedEvent');
  assert.throws(() => new NexmarkGenerator({ probDelayedEvent: 0.1, occasionalDelaySec: 0 }), (e: unknown) => e instanceof NexmarkOptionError && e.option === 'occasionalDelaySec');
});
