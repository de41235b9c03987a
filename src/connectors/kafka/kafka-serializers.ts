import { canalJson, type CanalJsonOptions } from '../../formats/canal-json.ts';
import type { ChangeLike } from '../../formats/change.ts';
import { debeziumJson, type DebeziumJsonOptions } from '../../formats/debezium-json.ts';
import { typedFormat } from '../../formats/typed-format.ts';
import type { Type } from '../../serialization/type-info.ts';

/** A record's value (or key) as the sink writes it; null is a tombstone. */
export type KafkaSerializer<T> = (value: T) => string | Uint8Array | null;

/** The sink's serializers, the counterparts of KafkaDeserializers. */
export const KafkaSerializers = {
  string: (): KafkaSerializer<string> => (v) => v,
  json: <T>(): KafkaSerializer<T> => (v) => JSON.stringify(v),
  /** weir's binary encoding of a declared type (the `Types` codecs): read back with KafkaDeserializers.typed(type). */
  typed: <T>(type: Type<T>): KafkaSerializer<T> => typedFormat(type).serialize,
  /** CDC change records as Debezium change events. */
  debeziumJson: (options?: DebeziumJsonOptions): KafkaSerializer<ChangeLike> => debeziumJson(options).serialize,
  /** CDC change records as Canal messages (one row each). */
  canalJson: (options?: CanalJsonOptions): KafkaSerializer<ChangeLike> => canalJson(options).serialize,
};
