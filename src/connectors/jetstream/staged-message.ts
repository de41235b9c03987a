import type { StagedMessage } from './jetstream-committable.ts';
import type { JetStreamSinkOptions } from './jetstream-sink-options.ts';

/** A record as the message the sink publishes for it. */
export function stageMessage<T>(o: JetStreamSinkOptions<T>, value: T): StagedMessage {
  const subject = typeof o.subject === 'string' ? o.subject : o.subject(value);
  const payload = o.serializer ? o.serializer(value) : JSON.stringify(value);
  const headers = o.headers?.(value);
  const body = typeof payload === 'string' ? { text: payload } : { base64: Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength).toString('base64') };
  return headers ? { subject, ...body, headers } : { subject, ...body };
}

/** The payload bytes of a staged message. */
export function payloadOf(m: StagedMessage): Uint8Array | string {
  return m.text ?? Buffer.from(m.base64 ?? '', 'base64');
}
