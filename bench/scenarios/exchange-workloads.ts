// The records of the `exchange` scenario, shared by the writing thread and the reading one.
import { Types } from '../../src/serialization/types.ts';
import type { TypeInfo } from '../../src/serialization/type-info.ts';

export interface ExchangeWorkload {
  readonly id: 'word' | '1k';
  readonly type: TypeInfo;
  readonly make: (i: number) => unknown;
  /** What the reader adds up per record, so that every record is really looked at. */
  readonly touch: (r: unknown) => number;
}

const WORDS = Array.from({ length: 1024 }, (_, i) => (0x100000 + i * 7919).toString(36).slice(-4 - (i % 5)));
const TEXT = Array.from({ length: 64 }, (_, i) => `${WORDS[i]} `.repeat(200).slice(0, 1000 + (i % 24)));

export const WORKLOADS: Readonly<Record<ExchangeWorkload['id'], ExchangeWorkload>> = {
  word: {
    id: 'word',
    type: Types.struct({ word: Types.string, count: Types.int }),
    make: (i) => ({ word: WORDS[i & 1023]!, count: i % 10_000 }),
    touch: (r) => (r as { count: number }).count + (r as { word: string }).word.length,
  },
  '1k': {
    id: '1k',
    type: Types.struct({ id: Types.int, text: Types.string, score: Types.double }),
    make: (i) => ({ id: i, text: TEXT[i & 63]!, score: i / 8 }),
    touch: (r) => (r as { text: string }).text.length,
  },
};
