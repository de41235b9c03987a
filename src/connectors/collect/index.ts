export { CollectSink, CollectedRecords } from './collect-sink.ts';
