// The source.
export { JetStreamSource } from './jetstream-source.ts';
export type { JetStreamSourceOptions, JetStreamMessageInfo, JetStreamStartingPosition } from './jetstream-source-options.ts';
export type { JetStreamSplit } from './jetstream-split.ts';
export { JetStreamDeserializationError } from './deserialization-error.ts';

// The exactly-once sink.
export { JetStreamSink } from './jetstream-sink.ts';
export type { JetStreamSinkOptions, JetStreamDeliveryGuarantee } from './jetstream-sink-options.ts';
export type { JetStreamCommittable, StagedMessage } from './jetstream-committable.ts';
export { DuplicateWindowTooShortError } from './duplicate-window-too-short-error.ts';
export { DuplicateWindowExceededError } from './duplicate-window-exceeded-error.ts';

export type { JetStreamConnectionOptions } from './jetstream-connection.ts';
export type { CreateStreamOptions } from './stream-lookup.ts';
export { StreamNotFoundError } from './stream-not-found-error.ts';
