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
