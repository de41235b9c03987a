export { CollectionSource } from './collection-source.ts';

// Types that the classes and functions exported here take or return, so that users of this
// entry point can name them (test/api/exported-types.test.ts checks every entry point).
export type { InputStatus, ReaderActivity, SourceOutput, SourceReader, SourceReaderContext, SplitEnumeratorContext } from '../../api/source.ts';
export type { OutputTag } from '../../api/output-tag.ts';
export type { StructField, TypeInfo } from '../../serialization/type-info.ts';
export type { DataGenSplit } from '../datagen/datagen-source.ts';
export type { LogFields, LogLevel, Logger } from '../../log/logger.ts';
