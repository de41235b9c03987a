export { PrintSink, type PrintSinkOptions } from './print-sink.ts';

// Types that the classes and functions exported here take or return, so that users of this
// entry point can name them (test/api/exported-types.test.ts checks every entry point).
export type { SinkCheckpointing, SinkContext, SinkWriter } from '../../api/sink.ts';
export type { LogFields, LogLevel, Logger } from '../../log/logger.ts';
