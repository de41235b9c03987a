export { TextFileSource, type TextFileSplit, type TextFileSourceOptions } from './text-file-source.ts';
export { InvalidUtf8Error } from './invalid-utf8-error.ts';
export { PlainFileSink, type FileSinkOptions } from './plain-file-sink.ts';
export { FileSink, committedFiles } from './file-sink.ts';
export { commitPending, committedName, type FileCommittable, type FileSinkCommittable } from './file-committable.ts';
export { PendingFileMissingError } from './pending-file-missing-error.ts';
