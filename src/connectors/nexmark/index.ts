export { Nexmark, type NexmarkSource } from './nexmark-source.ts';
export { NexmarkGenerator, FIRST_AUCTION_ID, FIRST_CATEGORY_ID, FIRST_PERSON_ID } from './nexmark-generator.ts';
export { maxOutOfOrdernessMs, resolveNexmarkOptions, NexmarkOptionError, type NexmarkConfig, type NexmarkOptions } from './nexmark-options.ts';
export type { Auction, Bid, NexmarkEvent, Person } from './nexmark-model.ts';
export { JavaRandom } from './java-random.ts';
