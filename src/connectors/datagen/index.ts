export { DataGen, DataGenSource, type DataGenOptions, type DataGenSplit } from './datagen-source.ts';
export { WordGenerator, buildVocabulary } from './word-generator.ts';
export { TimedEventGenerator, type TimedEvent, type TimedEventOptions } from './timed-event-generator.ts';
