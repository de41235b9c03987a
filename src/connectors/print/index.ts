export { PrintSink, type PrintSinkOptions } from './print-sink.ts';
