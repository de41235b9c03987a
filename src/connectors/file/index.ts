export { TextFileSource, type TextFileSplit, type TextFileSourceOptions } from './text-file-source.ts';
export { PlainFileSink, type FileSinkOptions } from './plain-file-sink.ts';
export { FileSink, committedFiles, committedName, type FileSinkState } from './file-sink.ts';
