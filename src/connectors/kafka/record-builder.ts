import type { Message } from 'kafkajs';
import type { KafkaSinkOptions } from './kafka-sink-options.ts';

/** A value as the Kafka message the sink sends (its partition, if the sink chooses it, resolved when sent). */
export interface OutgoingRecord {
  readonly topic: string;
  readonly message: Message;
  readonly value: unknown;
}

export function buildRecord<T>(o: KafkaSinkOptions<T>, value: T): OutgoingRecord {
  const topic = typeof o.topic === 'string' ? o.topic : o.topic(value);
  const payload = o.serializer ? o.serializer(value) : typeof value === 'string' ? value : JSON.stringify(value);
  const key = o.key?.(value) ?? null;
  const message: Message = { key: asBuffer(key), value: asBuffer(payload) };
  if (o.headers) message.headers = { ...o.headers(value) };
  return { topic, message, value };
}

function asBuffer(v: string | Uint8Array | null): Buffer | string | null {
  if (v === null || typeof v === 'string') return v;
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}
