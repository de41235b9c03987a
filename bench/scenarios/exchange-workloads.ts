// The records of the `exchange` scenario, shared by the writing thread and the reading one.
import type { Codec } from '../../src/serialization/codec.ts';
import { compileCodec } from '../../src/serialization/compile-codec.ts';
import { InferringCodec } from '../../src/serialization/inferring-codec.ts';
import { Types } from '../../src/serialization/types.ts';
import { declaredCodec } from '../../src/worker/edge-codec.ts';
import { NexmarkGenerator, type Bid } from '../../src/connectors/nexmark/index.ts';
import type { TypeInfo } from '../../src/serialization/type-info.ts';

export interface ExchangeWorkload {
  readonly id: 'word' | 'bid' | '1k';
  readonly type: TypeInfo;
  readonly make: (i: number) => unknown;
  /** What the reader adds up per record, so that every record is really looked at. */
  readonly touch: (r: unknown) => number;
}

const WORDS = Array.from({ length: 1024 }, (_, i) => (0x100000 + i * 7919).toString(36).slice(-4 - (i % 5)));
/** Bids of Nexmark's generator, as its joins (q4, q9, q20) send them between threads. */
const BIDS: Bid[] = [];
for (let n = 0, g = new NexmarkGenerator(); BIDS.length < 1024; n++) {
  const bid = g.eventAt(n).bid;
  if (bid !== null) BIDS.push(bid);
}
const TEXT = Array.from({ length: 64 }, (_, i) => `${WORDS[i]} `.repeat(200).slice(0, 1000 + (i % 24)));

export const WORKLOADS: Readonly<Record<ExchangeWorkload['id'], ExchangeWorkload>> = {
  word: {
    id: 'word',
    type: Types.struct({ word: Types.string, count: Types.int }),
    make: (i) => ({ word: WORDS[i & 1023]!, count: i % 10_000 }),
    touch: (r) => (r as { count: number }).count + (r as { word: string }).word.length,
  },
  bid: {
    id: 'bid',
    type: Types.struct({ auction: Types.int, bidder: Types.int, price: Types.int, channel: Types.string, url: Types.string, dateTime: Types.int, extra: Types.string }),
    make: (i) => {
      const b = BIDS[i & 1023]!;
      return { auction: b.auction + i, bidder: b.bidder, price: b.price, channel: b.channel, url: b.url, dateTime: b.dateTime + i, extra: b.extra };
    },
    touch: (r) => (r as Bid).price + (r as Bid).url.length,
  },
  '1k': {
    id: '1k',
    type: Types.struct({ id: Types.int, text: Types.string, score: Types.double }),
    make: (i) => ({ id: i, text: TEXT[i & 63]!, score: i / 8 }),
    touch: (r) => (r as { text: string }).text.length,
  },
};

/**
 * The codec of each mode, the same on both threads: `declared` as a job's edge of a declared struct
 * has it (records by column, a block per segment), `rows` the same type's codec a record after
 * another (as before blocks), `inferred` an undeclared edge's.
 */
export function codecFor(mode: 'declared' | 'rows' | 'inferred', w: ExchangeWorkload): Codec<unknown> {
  if (mode === 'declared') return declaredCodec(w.type);
  return mode === 'rows' ? compileCodec(w.type) : new InferringCodec();
}
