/**
 * How values of a stream become message payloads and back, for any connector that carries bytes
 * (Flink's SerializationSchema and DeserializationSchema in one). The functions are bound: pass
 * `format.serialize` where a sink takes a serializer, `format.deserialize` where a source takes a
 * deserializer of bytes.
 */
export interface ValueFormat<T, R = T> {
  /** The format's name, as errors name it ('debezium-json'). */
  readonly name: string;
  readonly serialize: (value: T) => Uint8Array;
  readonly deserialize: (bytes: Uint8Array) => R;
}
