export { TextFileSource, type TextFileSplit, type TextFileSourceOptions } from './text-file-source.ts';
export { InvalidUtf8Error } from './invalid-utf8-error.ts';
export { PlainFileSink, type FileSinkOptions } from './plain-file-sink.ts';
export { FileSink, committedFiles, type FileSinkConfig } from './file-sink.ts';
export {
  commitInProgress,
  commitPending,
  committedName,
  isInProgressFile,
  type FileCommittable,
  type FileSinkCommittable,
  type InProgressFile,
} from './file-committable.ts';
export { DEFAULT_ROLLING_POLICY, defaultRollingPolicy, onCheckpointRollingPolicy, type RollingPolicy } from './rolling-policy.ts';
export { PendingFileMissingError } from './pending-file-missing-error.ts';

// Types that the classes and functions exported here take or return, so that users of this
// entry point can name them (test/api/exported-types.test.ts checks every entry point).
export type { InputStatus, ReaderActivity, SourceOutput, SourceReader, SourceReaderContext, SplitEnumeratorContext } from '../../api/source.ts';
export type { OutputTag } from '../../api/output-tag.ts';
export type { StructField, TypeInfo } from '../../serialization/type-info.ts';
export type { SinkCheckpointing, SinkContext, SinkWriter } from '../../api/sink.ts';
export type { Committer, PrecommitCheckpoint, PrecommittingSinkWriter } from '../../api/two-phase-committing-sink.ts';
export type { LogFields, LogLevel, Logger } from '../../log/logger.ts';
export type { DeadLetter } from '../../api/dead-letter.ts';
