export { Nexmark, type NexmarkSource } from './nexmark-source.ts';
export { NexmarkGenerator, FIRST_AUCTION_ID, FIRST_CATEGORY_ID, FIRST_PERSON_ID } from './nexmark-generator.ts';
export { maxDelayEvents, maxOutOfOrdernessMs, resolveNexmarkOptions, NexmarkOptionError, type NexmarkConfig, type NexmarkOptions } from './nexmark-options.ts';
export type { Auction, Bid, NexmarkEvent, Person } from './nexmark-model.ts';
export { JavaRandom } from './java-random.ts';

// Types that the classes and functions exported here take or return, so that users of this
// entry point can name them (test/api/exported-types.test.ts checks every entry point).
export type { TimestampAssigner, WatermarkAlignment, WatermarkStrategy } from '../../api/watermark-strategy.ts';
export type { DataGenOptions, DataGenSource, DataGenSplit } from '../datagen/datagen-source.ts';
export type { HoldBack } from '../datagen/held-back-positions.ts';
export type { DurationArg } from '../../api/duration-arg.ts';
export type { WatermarkGenerator, WatermarkGeneratorContext } from '../../api/watermark-generator.ts';
export type { InputStatus, ReaderActivity, SourceOutput, SourceReader, SourceReaderContext, SplitEnumeratorContext } from '../../api/source.ts';
export type { OutputTag } from '../../api/output-tag.ts';
export type { StructField, TypeInfo } from '../../serialization/type-info.ts';
export type { Watermark, WatermarkOutput } from '../../api/watermark.ts';
export type { LogFields, LogLevel, Logger } from '../../log/logger.ts';
